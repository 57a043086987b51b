"""Arms and hands over the board, and frame-to-frame change.

An arm always reaches in over the board's edge, so a single frame shows it as a long run
of the board's margin (the strip just outside the grid) that does not look like board:
much brighter, much darker than a shadow, or of another hue. Stones at the edge poke
into that strip but not beyond it, so a second strip further out (board margin or table)
must disagree with its own usual look along that side too; stones lying beside the
board lie beyond both. An arm also hides the grid's outer line where it crosses it, which
shows even when the arm has the face's own look (:func:`lost_outer_lines`). From the
runs, the covered cells are those next to them and every cell reachable from them whose
look fits none of empty, red and black.

Out of the box the margin is compared with the board's colour as a plane across it
(fitted to the cells' corners): a lamp near one corner lights the margin there far
brighter than the board's median, and the plane carries that light on. An edge cell that
fits no class starts an arm only where the outer line beside it is hidden: an arm over
the edge hides it, glare on a glossy stone at the edge does not.

A single frame cannot tell an arm from what the room always shows along the edge: a
lamp's pool of light, a shade's shadow, glare on glossy stones. Once a start frame has
taught the room, its :class:`MarginLook` (the edge as that hand-free frame showed it)
is what each frame is compared with instead: an arm is where the margin changed, unless
the change is a moved edge stone's long shadow (:func:`arm_runs`).

Motion is the change of the rectified board between consecutive frames, per cell, and
along the margin strip: no stone is played there, so an arm crossing it shows there even
when it changes the cells it reaches little (a light hand on a light board, over an edge
cell's rim).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from .colour import colour_at, row_median, sample_median


@dataclass(frozen=True)
class HandConfig:
    band: Tuple[float, float] = (0.10, 0.26)   # margin strip depth beyond the grid, cells
    outer_band: Tuple[float, float] = (0.32, 0.5)  # beyond any stone's reach
    min_run: float = 0.9                       # run of non-board margin that is an arm, cells
    chroma: float = 14.0                       # Lab a*b* distance from the board
    brighter: float = 1.7                      # L ratio above which it is not board
    darker: float = 0.55                       # L ratio below which it is not a shadow (L is
                                               # a cube root: a shadow in half light is ~0.8)
    min_dL: float = 12.0                       # ... and at least this many L units apart
    misfit: float = 5.5                        # standardised feature distance: fits no class
    lines_gone: float = -0.35                  # ... or all four of its grid lines this much darker
    arm_misfit: float = 7.0                    # an edge cell this far off is an arm's start...
    arm_cells: int = 3                         # ... when the misfit patch it starts has this many
    motion: float = 10.0                       # mean |change| of L over a cell centre: moving
    margin_motion: float = 4.0                 # ... over a cell's stretch of the margin strip,
                                               # above the strip's usual change: an arm
    line_beside: float = 0.15                  # outer grid line against the face this far out, cells
    line_lost: float = 0.3                     # line contrast below this share of the usual: hidden
    line_run: float = 1.4                      # ... along at least this many cells (a stone
                                               # and its shadow at the edge: about one)
    line_most: float = 0.6                     # ... and at most this share of a side
    # Against the board's edge as a hand-free frame of the room showed it (MarginLook):
    changed: float = 10.0                      # Lab distance from that look, the frames'
                                               # overall shift taken out: changed. Tuning
                                               # rooms (pbr, Cycles), calibrated, at 6 / 8 /
                                               # 10 / 12: game frames flagged 5 / 4 / 2 / 1
                                               # of 62, hands over cells seen 15 / 15 / 14
                                               # / 14 of 15 (a false flag blinds the table
                                               # for as long as the light stays; a missed
                                               # hand is still seen moving)
    # A change no longer than this, cells, with the outer line showing all along it and
    # every edge cell beside it fitting a class, is the long shadow of edge stones moved
    # since that look (a low lamp), not an arm. Tuning rooms (pbr tune, Cycles seeds 1,
    # 4, 8, 9), calibrated from the start frame, at 0 (no such rule) / 1.3 / 2.5 / any
    # length: hand-free frames flagged 15 / 8 / 5 / 5 of 240, hands over cells seen
    # 31 / 31 / 31 / 31 of 35. Two edge stones side by side cast about two cells of it.
    shadow_run: float = 2.5
    misfit_rise: float = 2.0                   # a cell's misfit above its own then: new


DEFAULT_HANDS = HandConfig()


def _unlike_board(lab: np.ndarray, board: np.ndarray, cfg: HandConfig) -> np.ndarray:
    L = lab[..., 0]
    dc = np.hypot(lab[..., 1] - board[..., 1], lab[..., 2] - board[..., 2])
    ratio = (L + 2.0) / (board[..., 0] + 2.0)
    dL = np.abs(L - board[..., 0])
    return (dc > cfg.chroma) | (((ratio > cfg.brighter) | (ratio < cfg.darker)) & (dL > cfg.min_dL))


def _strips(lab: np.ndarray, width: int, height: int, ppc: int, pad: int,
            depth: Tuple[float, float]):
    """Per side, the strip ``depth`` (cells beyond the outer grid line), laid out as
    (depth pixels, along-edge pixels, 3)."""
    d0 = int(round(depth[0] * ppc))
    d1 = min(max(int(round(depth[1] * ppc)), d0 + 1), pad)
    if d1 <= d0:
        return {}
    gw, gh = width * ppc, height * ppc
    return {
        "bottom": lab[pad - d1:pad - d0, pad:pad + gw],                 # rows before the grid
        "top": lab[pad + gh + d0:pad + gh + d1, pad:pad + gw],
        "left": lab[pad:pad + gh, pad - d1:pad - d0].transpose(1, 0, 2),
        "right": lab[pad:pad + gh, pad + gw + d0:pad + gw + d1].transpose(1, 0, 2),
    }


def _board_along(board: np.ndarray, side: str, length: int, width: int, height: int, ppc: int,
                 cfg: HandConfig) -> np.ndarray:
    """The board's colour along a side's margin strip, one per pixel along it: ``board``, a
    colour plane in cell coordinates (3, 3; see :func:`.colour.colour_plane`), taken at the
    strip's middle depth."""
    t = (np.arange(length) + 0.5) / ppc
    depth = 0.5 * (cfg.band[0] + cfg.band[1])
    across = {"bottom": -depth, "top": height + depth, "left": -depth, "right": width + depth}[side]
    pts = (np.stack([t, np.full_like(t, across)], -1) if side in ("bottom", "top")
           else np.stack([np.full_like(t, across), t], -1))
    return colour_at(board, pts).astype(np.float32)


def margin_runs(lab: np.ndarray, width: int, height: int, ppc: int, pad: int,
                board: np.ndarray, cfg: HandConfig = DEFAULT_HANDS, changed: Optional[Mapping[str, np.ndarray]] = None
                ) -> List[Tuple[str, float, float]]:
    """Runs of covered margin: (side, start, end) in cells along that side, where side
    is "bottom" (rank 1 edge), "top", "left" (file a edge) or "right".

    The inner strip (just outside the grid) must disagree with the board's colour along
    the run (``board``: a colour plane across the board, :func:`.colour.colour_plane`,
    carried on to the strip), and the outer one (beyond any stone's reach; board margin or table) with
    that strip's usual look along the same side, taken where the inner strip is clear
    (else all around the board). Given where the margin ``changed`` from the room's
    hand-free look (:func:`margin_changes`), the runs are those changes instead: a
    lamp's pool of light, a window's shadow or glare along an edge look unlike the board
    in every frame of the room, and an arm is what was not there then, whether or not
    it looks like the board (a hand the colour of a light face)."""
    if changed is not None:
        return [run for side, flags in changed.items() for run in _runs(side, flags, ppc, cfg.min_run)]
    inner = _strips(lab, width, height, ppc, pad, cfg.band)
    outer = _strips(lab, width, height, ppc, pad, cfg.outer_band)
    sides = [side for side, strip in inner.items() if strip.size and side in outer]
    near = {side: _unlike_board(inner[side], _board_along(board, side, inner[side].shape[1], width, height, ppc, cfg),
                                cfg).mean(axis=0) > 0.6 for side in sides}
    # The outer strip's usual look along a side is taken where the inner strip is clear:
    # an arm covering most of a side would otherwise be that side's usual look.
    clear = [outer[side][:, ~near[side]].reshape(-1, 3) for side in sides]
    everywhere = np.concatenate(clear) if clear else np.zeros((0, 3))
    runs = []
    for side, seen in zip(sides, clear):
        far = outer[side]
        if len(seen) >= 0.1 * far.shape[0] * far.shape[1]:
            usual = sample_median(seen[None])[0]
        elif len(everywhere):
            usual = sample_median(everywhere[None])[0]
        else:
            usual = sample_median(far.reshape(1, -1, 3))[0]
        unlike = near[side] & (_unlike_board(far, usual, cfg).mean(axis=0) > 0.6)
        runs += _runs(side, unlike, ppc, cfg.min_run)
    return runs


@dataclass(frozen=True)
class MarginLook:
    """The board's edge as a hand-free frame of the room showed it, :data:`SEGMENTS` samples
    a cell along each side: the inner and outer margin strips' Lab (medians across the
    strip), the outer grid line's contrast, and every cell's misfit score (how far it
    looked from every class). The room keeps it (``Calibration.room["margin"]``) so that
    what every frame of the room shows (a lamp's pool of light, a shadow, glare on glossy
    stones at the edge) is not taken for an arm."""

    inner: Mapping[str, np.ndarray]     # side -> (samples, 3)
    outer: Mapping[str, np.ndarray]     # side -> (samples, 3)
    lines: Mapping[str, np.ndarray]     # side -> (samples,)
    misfit: np.ndarray                  # (cells,)

    def to_json(self) -> dict:
        r = lambda a: np.round(np.asarray(a, float), 2).tolist()
        return {"inner": {k: r(v) for k, v in self.inner.items()},
                "outer": {k: r(v) for k, v in self.outer.items()},
                "lines": {k: r(v) for k, v in self.lines.items()}, "misfit": r(self.misfit)}

    @classmethod
    def from_json(cls, data: Mapping, cells: int) -> "MarginLook":
        """ValueError when ``data`` is not a margin look of a board of ``cells`` cells."""
        try:
            parts = {}
            for key, width in (("inner", 3), ("outer", 3), ("lines", 0)):
                sides = {side: np.asarray(data[key][side], np.float32) for side in SIDES}
                for a in sides.values():
                    if a.ndim != (2 if width else 1) or (width and a.shape[1] != width) or not np.isfinite(a).all():
                        raise ValueError
                parts[key] = sides
            misfit = np.asarray(data["misfit"], np.float32)
        except (KeyError, TypeError, ValueError):
            raise ValueError("the calibration's margin look is malformed") from None
        if misfit.shape != (cells,) or not np.isfinite(misfit).all():
            raise ValueError("the calibration's margin look is not of this board")
        return cls(parts["inner"], parts["outer"], parts["lines"], misfit)


SIDES = ("bottom", "top", "left", "right")
SEGMENTS = 4              # samples a cell along each side in a MarginLook


def margin_look(lab: np.ndarray, L: np.ndarray, width: int, height: int, ppc: int, pad: int,
                misfit: np.ndarray, cfg: HandConfig = DEFAULT_HANDS) -> MarginLook:
    """The :class:`MarginLook` of one rectified frame (``misfit``: its cells' scores)."""
    seg = lambda c: _segments(c, ppc)
    inner, outer = _margin_columns(lab, width, height, ppc, pad, cfg)
    lines = _line_contrast(L, width, height, ppc, pad, cfg)
    return MarginLook({k: seg(v) for k, v in inner.items()}, {k: seg(v) for k, v in outer.items()},
                      {k: seg(v) for k, v in lines.items()}, np.asarray(misfit, np.float32))


def margin_changes(lab: np.ndarray, width: int, height: int, ppc: int, pad: int, look: MarginLook,
                   cfg: HandConfig = DEFAULT_HANDS) -> Dict[str, np.ndarray]:
    """Per side and pixel along it, whether both margin strips (the inner one, and the
    outer one beyond any stone's reach) changed from the room's hand-free ``look``: an
    arm crosses both, a stone put at the edge pokes into the inner one only, a cup put
    beside the board changes the outer one only."""
    inner, outer = _margin_columns(lab, width, height, ppc, pad, cfg)
    moved_in, moved_out = _changed(inner, look.inner, cfg), _changed(outer, look.outer, cfg)
    return {side: moved_in[side] & moved_out[side] for side in moved_in if side in moved_out}


def arm_runs(runs: Sequence[Tuple[str, float, float]], lost: Mapping[str, np.ndarray], unfit: np.ndarray,
             width: int, height: int, ppc: int, cfg: HandConfig = DEFAULT_HANDS) -> List[Tuple[str, float, float]]:
    """Of the runs where the margin changed from the room's look (:func:`margin_runs`
    given the changes), those an arm may make. Under a low lamp a stone at the edge casts
    its shadow far across the margin: a stone moved there since the look leaves or casts
    a stretch of changed margin a cell or two long. An arm that reaches over the edge
    hides the outer line where it crosses it (``lost``, :func:`lost_outer_lines`) or
    covers the edge cells beside it (``unfit``: per cell, cell_names order, fits no
    class); a shadow does neither, and is no longer than ``cfg.shadow_run``."""
    def arm(run: Tuple[str, float, float]) -> bool:
        side, a, b = run
        if b - a > cfg.shadow_run:
            return True
        hidden = lost.get(side)
        if hidden is not None and hidden[int(a * ppc):int(np.ceil(b * ppc))].any():
            return True
        return any(unfit[i] for i in _edge_cells([run], width, height))
    return [run for run in runs if arm(run)]


def entered_cells(changed: Mapping[str, np.ndarray], width: int, height: int, ppc: int,
                  least: float = 0.3) -> Set[int]:
    """The edge cells (cell_names order) whose stretch of the margin changed
    (:func:`margin_changes`) along at least ``least`` of a cell: where an arm may have
    come in."""
    cells: Set[int] = set()
    for side, flags in changed.items():
        n = len(flags) // ppc
        share = flags[:n * ppc].reshape(n, ppc).mean(axis=1)
        cells.update(_edge_cell(side, k, width, height) for k in np.flatnonzero(share >= least).tolist())
    return cells - {None}


def _margin_columns(lab: np.ndarray, width: int, height: int, ppc: int, pad: int, cfg: HandConfig
                    ) -> Tuple[Dict[str, np.ndarray], Dict[str, np.ndarray]]:
    """The inner and the outer margin strip (``cfg.band``, ``cfg.outer_band``): per side,
    the median colour across the strip's depth at every pixel along it."""
    return tuple({side: np.median(strip, axis=0) for side, strip in _strips(lab, width, height, ppc, pad, band).items()}
                 for band in (cfg.band, cfg.outer_band))


def _segments(values: np.ndarray, ppc: int) -> np.ndarray:
    """``values`` along a side (one per pixel) as :data:`SEGMENTS` medians a cell."""
    step = max(1, ppc // SEGMENTS)
    n = len(values) // step
    return np.median(values[:n * step].reshape(n, step, *values.shape[1:]), axis=1)


def _along(samples: np.ndarray, length: int) -> np.ndarray:
    """A look's samples spread back to ``length`` pixels along the side."""
    idx = np.minimum((np.arange(length) * len(samples)) // max(length, 1), len(samples) - 1)
    return samples[idx]


def _changed(now: Mapping[str, np.ndarray], then: Mapping[str, np.ndarray], cfg: HandConfig) -> Dict[str, np.ndarray]:
    """Per side and pixel along it, whether the strip's colour changed from ``then`` (a
    look's samples) by more than ``cfg.changed`` in Lab, once the change common to the
    whole margin (the room's light, the camera's exposure) is taken out."""
    shift = {side: now[side] - _along(np.asarray(then[side], np.float32), len(now[side])) for side in now}
    common = np.median(np.concatenate(list(shift.values())), axis=0)
    return {side: np.sqrt(((d - common) ** 2).sum(axis=1)) > cfg.changed for side, d in shift.items()}


def _runs(side: str, flags: np.ndarray, ppc: int, shortest: float, longest: float = np.inf
          ) -> List[Tuple[str, float, float]]:
    """(side, start, end) in cells of every run of True in ``flags`` (one per pixel along
    the side) from ``shortest`` to ``longest`` cells long."""
    padded = np.concatenate([[False], flags, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    return [(side, a / ppc, b / ppc) for a, b in zip(edges[::2], edges[1::2])
            if shortest <= (b - a) / ppc <= longest]


def _line_contrast(L: np.ndarray, width: int, height: int, ppc: int, pad: int,
                   cfg: HandConfig) -> Dict[str, np.ndarray]:
    """Per side, the grid's outer line's contrast with the face ``line_beside`` beyond it,
    per pixel along the side (smoothed over an eighth of a cell)."""
    gw, gh = width * ppc, height * ppc
    out = max(1, min(int(round(cfg.line_beside * ppc)), pad - 1))
    Lf = L.astype(np.float32)
    sides = {
        "bottom": (Lf[pad - 1:pad + 2, pad:pad + gw], Lf[pad - out, pad:pad + gw]),
        "top": (Lf[pad + gh - 1:pad + gh + 2, pad:pad + gw], Lf[pad + gh + out, pad:pad + gw]),
        "left": (Lf[pad:pad + gh, pad - 1:pad + 2].T, Lf[pad:pad + gh, pad - out]),
        "right": (Lf[pad:pad + gh, pad + gw - 1:pad + gw + 2].T, Lf[pad:pad + gh, pad + gw + out]),
    }
    contrast = {}
    for side, (rows, beyond) in sides.items():
        # The line's extreme across its width (light or dark, whichever stands out).
        hi, lo = rows.max(axis=0), rows.min(axis=0)
        c = np.maximum(hi - beyond, beyond - lo)
        k = max(1, ppc // 8)
        contrast[side] = np.convolve(c, np.ones(k) / k, mode="same")
    return contrast


def lost_outer_lines(L: np.ndarray, width: int, height: int, ppc: int, pad: int,
                     cfg: HandConfig = DEFAULT_HANDS, look: Optional["MarginLook"] = None
                     ) -> Dict[str, np.ndarray]:
    """Per side and pixel along it, whether the grid's outer line is hidden: its contrast
    with the face just beyond it below ``line_lost`` of the usual along all four sides,
    or, given the room's hand-free ``look``, of its own contrast there then (a side in a
    lamp's shadow shows its line faintly in every frame). An arm reaching in hides the
    line whatever its colour (a dark sleeve over the dark 9x9 face has nearly the face's
    look, not its light lines); a shadow only dims line and face together. Empty when
    the grid shows no lines at all."""
    contrast = _line_contrast(L, width, height, ppc, pad, cfg)
    usual = float(row_median(np.concatenate(list(contrast.values()))))
    if usual <= 1.0:
        return {}
    return {side: c < cfg.line_lost * (usual if look is None else np.maximum(_along(look.lines[side], len(c)), 1.0))
            for side, c in contrast.items()}


def hidden_edge_lines(lost: Mapping[str, np.ndarray], ppc: int, cfg: HandConfig = DEFAULT_HANDS
                      ) -> List[Tuple[str, float, float]]:
    """Runs, as :func:`margin_runs` gives them, where the outer line is hidden
    (:func:`lost_outer_lines`) along ``line_run`` cells at least: a stone at the edge with
    its shadow hides about a cell of it. A whole side without its line is a grid placed
    off the board, not an arm (``line_most``)."""
    return [run for side, flags in lost.items()
            for run in _runs(side, flags, ppc, cfg.line_run, cfg.line_most * len(flags) / ppc)]


def edge_arms(score: np.ndarray, width: int, height: int, cfg: HandConfig = DEFAULT_HANDS,
              entered: Optional[Set[int]] = None) -> Set[int]:
    """Cells covered by arms seen on the board itself, for arms whose margin strip looks
    too much like board or shadow (dark skin on a dark face, a sleeve the board's colour):
    an edge cell that fits no class by far (``score``: standardised feature distance), with
    the patch of misfit cells it starts holding at least ``arm_cells`` cells. An arm always
    enters over an edge, so a misfit patch in the middle (a stone on its side) is no arm.
    Given the edge cells where the margin changed from the room's hand-free look
    (:func:`entered_cells`), only those start an arm: a glossy stone moved to the edge
    fits no class either, but leaves the margin beyond it as it was."""
    misfit = score > cfg.misfit
    border = [i for i in range(width * height)
              if (i < width or i >= (height - 1) * width or i % width in (0, width - 1))
              and (entered is None or i in entered)]
    covered: Set[int] = set()
    for i in border:
        if score[i] > cfg.arm_misfit and i not in covered:
            patch = _grow({i}, misfit, width, height)
            if len(patch) >= cfg.arm_cells:
                covered |= patch
    return covered


def _grow(seeds: Set[int], misfit: np.ndarray, width: int, height: int) -> Set[int]:
    """``seeds`` and every misfit cell 8-connected to them."""
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


def covered_cells(runs: Sequence[Tuple[str, float, float]], width: int, height: int,
                  misfit: np.ndarray) -> Set[int]:
    """Cell indices (cell_names order) covered by the arms whose margin runs are given:
    the edge cells along each run, then any misfit cell 8-connected to covered ones."""
    return _grow(_edge_cells(runs, width, height), misfit, width, height)


def _edge_cells(runs: Sequence[Tuple[str, float, float]], width: int, height: int) -> Set[int]:
    """The edge cells (cell_names order) along margin runs, as :func:`margin_runs` gives them."""
    cells: Set[int] = set()
    for side, a, b in runs:
        lo, hi = int(np.floor(a)), int(np.ceil(b))
        cells.update(_edge_cell(side, k, width, height) for k in range(max(lo, 0), hi))
    return cells - {None}


def _edge_cell(side: str, k: int, width: int, height: int) -> Optional[int]:
    """The index (cell_names order) of the ``k``-th cell along ``side`` (as
    :func:`margin_runs` names sides), None past the side's end."""
    if k >= (width if side in ("bottom", "top") else height):
        return None
    return {"bottom": k, "top": (height - 1) * width + k, "left": k * width, "right": k * width + width - 1}[side]


def cell_motion(previous: np.ndarray, current: np.ndarray, width: int, height: int, ppc: int,
                pad: int) -> np.ndarray:
    """Mean absolute change of L per cell (cell_names order) over the cell's centre disc
    between two rectified L images of the same calibration. The centre is where a stone
    comes or goes; a cell's rim also changes with a stone nudged by a millimetre."""
    diff = np.abs(current.astype(np.float32) - previous.astype(np.float32))
    grid = diff[pad:pad + height * ppc, pad:pad + width * ppc]
    blocks = grid.reshape(height, ppc, width, ppc).transpose(0, 2, 1, 3).reshape(height * width, ppc * ppc)
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    centre = (np.hypot(*np.meshgrid(c, c)) <= 0.25).ravel()
    return blocks[:, centre].mean(axis=1)


def margin_motion(previous: np.ndarray, current: np.ndarray, width: int, height: int, ppc: int,
                  pad: int, cfg: HandConfig = DEFAULT_HANDS) -> float:
    """The largest mean absolute change of L over a one-cell stretch of the margin strip
    (``cfg.band``, beyond the outer grid line) between two rectified L images of the same
    calibration, less the median over all stretches (a change of the room's light or the
    camera's exposure changes every stretch alike; an arm, a few)."""
    before = _strips(previous[..., None], width, height, ppc, pad, cfg.band)
    after = _strips(current[..., None], width, height, ppc, pad, cfg.band)
    stretches = []
    for side, strip in after.items():
        # Only the strips' pixels: the whole frame's change is cell_motion's.
        along = np.abs(strip[..., 0].astype(np.float32)
                       - before[side][..., 0].astype(np.float32)).mean(axis=0)
        n = len(along) // ppc
        stretches.append(along[:n * ppc].reshape(n, ppc).mean(axis=1))
    if not stretches:
        return 0.0
    every = np.concatenate(stretches)
    return float(every.max() - np.median(every))
