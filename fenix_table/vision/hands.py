"""Arms and hands over the board, and frame-to-frame change.

An arm always reaches in over the board's edge, so a single frame shows it as a long run
of the board's margin (the strip just outside the grid) that does not look like board:
much brighter, much darker than a shadow, or of another hue. Stones at the edge poke at
most a stone's width into that strip and never fill its depth; stones lying beside the
board lie beyond it. From the run, the covered cells are those next to it and every cell
reachable from them whose look fits none of empty, red and black.

Motion is the change of the rectified board between consecutive frames, per cell.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Set, Tuple

import numpy as np


@dataclass(frozen=True)
class HandConfig:
    band: Tuple[float, float] = (0.10, 0.26)   # margin strip depth beyond the grid, cells
    min_run: float = 0.9                       # run of non-board margin that is an arm, cells
    chroma: float = 14.0                       # Lab a*b* distance from the board
    brighter: float = 1.7                      # L ratio above which it is not board
    darker: float = 0.30                       # L ratio below which it is not a shadow
    min_dL: float = 12.0                       # ... and at least this many L units apart
    unlike_ll: float = -40.0                   # colour log-likelihood below which a cell fits no class
    motion: float = 6.0                        # mean |change| in L per cell that counts as moving


DEFAULT_HANDS = HandConfig()


def _unlike_board(lab: np.ndarray, board: np.ndarray, cfg: HandConfig) -> np.ndarray:
    L = lab[..., 0]
    dc = np.hypot(lab[..., 1] - board[1], lab[..., 2] - board[2])
    ratio = (L + 2.0) / (board[0] + 2.0)
    dL = np.abs(L - board[0])
    return (dc > cfg.chroma) | (((ratio > cfg.brighter) | (ratio < cfg.darker)) & (dL > cfg.min_dL))


def margin_runs(lab: np.ndarray, width: int, height: int, ppc: int, pad: int,
                board: np.ndarray, cfg: HandConfig = DEFAULT_HANDS) -> List[Tuple[str, float, float]]:
    """Runs of non-board margin: (side, start, end) in cells along that side, where side
    is "bottom" (rank 1 edge), "top", "left" (file a edge) or "right"."""
    d0, d1 = int(round(cfg.band[0] * ppc)), max(int(round(cfg.band[1] * ppc)), int(round(cfg.band[0] * ppc)) + 1)
    d1 = min(d1, pad)
    if d1 <= d0:
        return []
    gw, gh = width * ppc, height * ppc
    strips = {
        "bottom": lab[pad - d1:pad - d0, pad:pad + gw],                 # rows before the grid
        "top": lab[pad + gh + d0:pad + gh + d1, pad:pad + gw],
        "left": lab[pad:pad + gh, pad - d1:pad - d0].transpose(1, 0, 2),
        "right": lab[pad:pad + gh, pad + gw + d0:pad + gw + d1].transpose(1, 0, 2),
    }
    runs = []
    for side, strip in strips.items():
        if strip.size == 0:
            continue
        unlike = _unlike_board(strip, board, cfg).mean(axis=0) > 0.6
        # Close one-pixel gaps (noise), then find runs.
        padded = np.concatenate([[False], unlike, [False]])
        edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
        for a, b in zip(edges[::2], edges[1::2]):
            if (b - a) / ppc >= cfg.min_run:
                runs.append((side, a / ppc, b / ppc))
    return runs


def covered_cells(runs: Sequence[Tuple[str, float, float]], width: int, height: int,
                  misfit: np.ndarray) -> Set[int]:
    """Cell indices (cell_names order) covered by the arms whose margin runs are given:
    the edge cells along each run, then any misfit cell 8-connected to covered ones."""
    seeds: Set[int] = set()
    for side, a, b in runs:
        lo, hi = int(np.floor(a)), int(np.ceil(b))
        for k in range(max(lo, 0), hi):
            if side == "bottom" and k < width:
                seeds.add(k)
            elif side == "top" and k < width:
                seeds.add((height - 1) * width + k)
            elif side == "left" and k < height:
                seeds.add(k * width)
            elif side == "right" and k < height:
                seeds.add(k * width + width - 1)
    covered = set(seeds)
    stack = list(seeds)
    while stack:
        i = stack.pop()
        r, f = divmod(i, width)
        for dr in (-1, 0, 1):
            for df in (-1, 0, 1):
                rr, ff = r + dr, f + df
                if 0 <= rr < height and 0 <= ff < width:
                    j = rr * width + ff
                    if j not in covered and misfit[j]:
                        covered.add(j)
                        stack.append(j)
    return covered


def cell_motion(previous: np.ndarray, current: np.ndarray, width: int, height: int, ppc: int,
                pad: int) -> np.ndarray:
    """Mean absolute change of L per cell (cell_names order) between two rectified
    L images of the same calibration."""
    diff = np.abs(current.astype(np.float32) - previous.astype(np.float32))
    grid = diff[pad:pad + height * ppc, pad:pad + width * ppc]
    return grid.reshape(height, ppc, width, ppc).mean(axis=(1, 3)).ravel()
