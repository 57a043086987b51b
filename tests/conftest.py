"""Fixtures shared by the vision and table tests: rooms the camera finds hard, and
games played on."""
import pytest

from fenix_tools.sim import SceneParams


@pytest.fixture
def dim_maroon():
    """A dim room under a warm lamp with maroon red stones: out of the box every red stone
    of the 7x8 start position reads as black."""
    return SceneParams(red_color=(0.14, 0.12, 0.2), light_color=(1.3, 0.9, 0.6), light_intensity=0.5,
                       noise_sigma=3.0, jpeg_quality=85)


@pytest.fixture
def played():
    """A 9x9 game (strike rules) ``plies`` random legal plies on from the start: its
    positions, the start's first."""
    import random

    from fenix_table.rules import Position, Rules, apply, legal_moves

    def game(plies, seed=1):
        rules, choose = Rules.preset("strike"), random.Random(seed)
        positions = [Position.start("9x9")]
        for _ in range(plies):
            positions.append(apply(positions[-1], choose.choice(legal_moves(positions[-1], rules)), rules))
        return positions
    return game
