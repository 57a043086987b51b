"""Evidence of change between two still boards: which stacks were touched.

A stacking move (setup, a General or King made) shows from above as "a stone vanished":
the stone went onto one of the mover's stacks, and that stack still reads the same
colour. But a stone put on a stack never lands exactly where the one below was: its top
disc now sits one stone higher, so it is pushed outward from the image's nadir by
parallax (about ``thickness / camera height`` of its distance from the nadir: 0.22 / 16
cells per cell off-centre), looks a little larger, lies a millimetre or two off the stone
below, and casts a longer shadow. An untouched stack looks as it did, give or take noise.

:func:`stack_changes` scores, per cell, how much the stack there changed between the first
still frame of the board before a change and the first still frame after it, on the
rectified board (the same pixels the cell reader reads), from two looks (edges: the
gradient magnitude, the earlier picture scaled to the later one's contrast; brightness,
less the cell's own median change inside the stone, blind to light or exposure that
brightened the whole cell), each taken in two rings:

- inside the stone's rim (0.12-0.38 cell from the centre), the mean change: the top
  disc's shading and a shift that shows inside it;
- across the rim (0.20-0.46), cut into eight sectors, one facing each neighbour: the
  median of the sectors' mean changes. The new top disc covers or bares a crescent of
  board beside the stack on two opposite sides at least (a black stone on a dark face
  shows next to nothing else), while what comes from outside the stack reaches into the
  sectors on one side only: a lifted neighbour's shadow, a grown neighbour's longer
  shadow or its stone reaching over the cell boundary. Measured over the whole rim
  those scored untouched stacks up to 19 and made a neighbour of the landing look
  changed (the rim was left out before for that reason); the median leaves them out.

Each of the four is put on a common scale, its robust spread (most cells did not
change), and the score is their sum over two: 0 is an ordinary cell, 10 a change ten
spreads above it. Given the later board's colours, each colour is measured against its
own cells: the candidates of a stacking ply are the mover's stacks, and black stones on
the dark 9x9 face hardly change at all while empty cells and red stones vary much more,
so against the whole board a dark landing was lost.

:func:`stack_growth` measures apart how much each stack's top disc grew (a stone put on
it sits a stone nearer the camera): a black stone on a black stack of the dark face
changes the looks little, but its rim still moves outward all round. The referee ranks
landings by it, and takes no ply on it alone: it only eases how far a landing's change
must stand out when that disc alone clearly grew.

:func:`pointed_at` finds where the hand put the stone down: to put it there the hand
reached in from the player's side and its fingers ended over the landing. In the last
frame with the hand before the board became still, the hand is what differs from the
still board after it (shadows left out); its fingers' front, along their own direction,
is where they ended. On the generator's tuning games (0-7: 90 stacking plies) the
landing was the candidate nearest the spot on 88, its centre 0.15 cells from it
(median), 0.42 at the 90th percentile. The referee ranks landings by it and, where the
change agrees, takes a landing it points at whose change is too weak to stand out alone.

On the generator's tuning games (0-6, seed 1: 79 stacking plies) the referee's rule
(:func:`fenix_table.referee.tracker.landing_by_change`) takes 65 plies with the rim's
sectors and none wrong; with the inside look alone it took 34 of the first 56 (and
needed a stricter rule for neighbours to stay right). On the independent renderer's
games 0-2 (34 plies, never tuned on) it takes all 34, as the inside look did.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional, Sequence, Tuple

import numpy as np

from .colour import cell_pixels, row_median

#: The ring measured inside the stone, as fractions of a cell from the cell's centre:
#: inside a stone's rim (at 0.40), so that the board around it stays out.
RING = (0.12, 0.38)
#: The ring across the rim (a stone's edge, and the board just beyond it), cut into
#: ``SECTORS`` sectors, the first centred on the next file (the others follow round, so
#: each neighbour faces one sector).
RIM = (0.20, 0.46)
SECTORS = 8


def _sector_share(angles: np.ndarray) -> np.ndarray:
    """The (pixels, sectors) share matrix of ring pixels at ``angles`` (radians, 0 towards
    the next file): each of the :data:`SECTORS` sectors' mean as a weighted sum."""
    sector = np.round(angles / (2 * np.pi / SECTORS)).astype(int) % SECTORS
    share = np.eye(SECTORS, dtype=np.float32)[sector]
    return share / share.sum(axis=0)


def _gather(image: np.ndarray, width: int, height: int, ppc: int, pad: int,
            rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(pixels, cells): the pixels at (``rows``, ``cols``) within each cell (cell_names
    order) of a rectified image. Gathered through a view of the grid as (rank, row,
    file, column): a few hundred small indices, where flat indices for every cell's
    pixels (hundreds of kilobytes of them) cost more to read than the pixels themselves."""
    grid = image[pad:pad + height * ppc, pad:pad + width * ppc].reshape(height, ppc, width, ppc)
    return grid[:, rows, :, cols].reshape(len(rows), height * width)


@lru_cache(maxsize=8)
def _rings(ppc: int) -> Tuple[Tuple[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The (rows, columns) within a cell of its inside ring's and its rim ring's pixels,
    and the rim pixels' (sectors, pixels) share matrix (each sector's mean)."""
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    x, y = np.meshgrid(c, c)
    r = np.hypot(x, y)
    inside = np.nonzero((r >= RING[0]) & (r <= RING[1]))
    rim = (r >= RIM[0]) & (r <= RIM[1])
    return inside, np.nonzero(rim), np.ascontiguousarray(_sector_share(np.arctan2(y, x)[rim]).T)


def _looks(before: np.ndarray, after: np.ndarray, width: int, height: int, ppc: int,
           pad: int, shape_only: str) -> Tuple[np.ndarray, np.ndarray]:
    """Per cell: the mean absolute change inside the stone, and the median over the rim's
    sectors of their mean absolute change. ``shape_only``: "offset" takes the cell's
    median change inside the stone off both (a brighter or darker cell), "gain" scales
    the earlier picture to the later one's level first, each ring by its own level (more
    or less contrast)."""
    inside, rim, share = _rings(ppc)
    looks = []
    offset = None
    for ring in (inside, rim):
        o = _gather(before, width, height, ppc, pad, *ring)
        n = _gather(after, width, height, ppc, pad, *ring)
        if shape_only == "gain":
            o *= n.mean(axis=0) / (o.mean(axis=0) + 1e-3)
        diff = np.subtract(n, o, out=n)
        if shape_only == "offset":
            if offset is None:
                offset = row_median(np.ascontiguousarray(diff.T))
            diff -= offset
        looks.append(np.abs(diff, out=diff))
    return looks[0].mean(axis=0), row_median(np.ascontiguousarray((share @ looks[1]).T))


#: A group of cells (one colour) is put on its own scale only when it has this many
#: cells, and its spread is taken as at least this share of the board's: a group of
#: nearly identical cells must not turn its noise into changes.
GROUP_CELLS = 5
GROUP_SPREAD_FLOOR = 0.25


def _robust(x: np.ndarray, groups: Optional[Sequence[str]] = None, floor: float = 1e-3
            ) -> np.ndarray:
    """``x`` (looks, cells), each look in units of its spread over the board (plus
    ``floor``), 0 at its median; with ``groups`` (a label per cell), each group of at
    least :data:`GROUP_CELLS` cells in units of its own spread, 0 at its own median."""
    def centre_spread(values):
        mid = row_median(np.ascontiguousarray(values))[:, None]
        return mid, 1.4826 * row_median(np.abs(values - mid))[:, None] + floor

    centre, spread = centre_spread(x)
    out = (x - centre) / spread
    if groups is not None:
        labels = np.asarray(groups)
        for label in set(groups):
            cells = labels == label
            if cells.sum() < GROUP_CELLS:
                continue
            own = x[:, cells]
            mid, scale = centre_spread(own)
            out[:, cells] = (own - mid) / np.maximum(scale, GROUP_SPREAD_FLOOR * spread)
    return out


def stack_changes(before, after, width: int, height: int,
                  colours: Optional[Sequence[str]] = None) -> np.ndarray:
    """Per cell (cell_names order), how much the stack there changed between two still
    frames, given as the reader's :class:`~fenix_table.vision.cells.Rectified` images of
    the same calibration; see the module docstring for the scale. ``colours`` (the
    later board's colour per cell) puts each colour's cells on their own scale."""
    ppc, pad = after.ppc, after.pad
    looks = np.stack(_looks(before.grad, after.grad, width, height, ppc, pad, "gain")
                     + _looks(before.L, after.L, width, height, ppc, pad, "offset"))
    return _robust(looks, colours).sum(axis=0) / 2


#: The top disc's growth is fitted over the stone inside this radius from the cell's
#: centre (a fraction of a cell): the rim is at 0.40, and a stone lies up to a tenth of a
#: cell off its centre, so the disc reaches to the cell's edge, where the neighbours'
#: stones (0.60 away and more) do not yet. On the generator's tuning games (0-9, 20-39,
#: 344 stacking plies) the landing grew most among its colour's stacks on 81% of them
#: with 0.50, 69% with 0.44 (inside the cell only), 79% with 0.54.
GROWTH_DISC = 0.50
#: Added to the growth's spread (a share of the disc's size): on the generator's tuning
#: games a landing's disc grew by 1.8% (median), untouched stacks' spread was 0.11% on
#: the median board and 0.04% on the stillest; a still board's noise must not be blown
#: up into growth.
GROWTH_SPREAD_FLOOR = 0.001


@lru_cache(maxsize=8)
def _disc(ppc: int
          ) -> Tuple[int, Tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """The growth fit's window about each cell: how far it reaches beyond the cell (in
    pixels, on each side); the fit's pixels (every other one of the disc, a checkerboard:
    the fit needs the rim's gradients, not every pixel of them) and their neighbours in
    the window, as (rows, columns); the places among those of each fit pixel and of its
    neighbours (rows: itself, before and after it along a row, before and after it along
    a column); and the fit pixels' (x, y) offsets from the cell's centre, in pixels."""
    beyond = int(np.ceil(max(GROWTH_DISC * ppc - ppc / 2, 0))) + 1
    size = ppc + 2 * beyond
    c = (np.arange(size) + 0.5) - size / 2
    x, y = np.meshgrid(c, c)
    rows, cols = np.indices((size, size))
    fit = (np.hypot(x, y) <= GROWTH_DISC * ppc) & ((rows + cols) % 2 == 0)
    near = fit.copy()
    near[1:] |= fit[:-1]
    near[:-1] |= fit[1:]
    near[:, 1:] |= fit[:, :-1]
    near[:, :-1] |= fit[:, 1:]
    place = np.full((size, size), -1)
    place[near] = np.arange(near.sum())
    r, c = np.nonzero(fit)
    places = np.stack([place[r, c], place[r, c - 1], place[r, c + 1],
                       place[r - 1, c], place[r + 1, c]])
    return (beyond, np.nonzero(near), places,
            x[fit].astype(np.float32)[:, None], y[fit].astype(np.float32)[:, None])


def _gather_windows(image: np.ndarray, width: int, height: int, ppc: int, pad: int,
                    beyond: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(pixels, cells): as :func:`_gather`, but (``rows``, ``cols``) in a window reaching
    ``beyond`` pixels past each side of the cell (into the neighbours' cells or the
    board's margin, ``pad`` wide), through an overlapping strided view of the image."""
    if pad < beyond or image.shape[0] < height * ppc + 2 * pad or \
            image.shape[1] < width * ppc + 2 * pad:
        raise ValueError("the rectified board's margin is narrower than the growth fit's window")
    image = np.ascontiguousarray(image)
    step_row, step_col = image.strides
    size = ppc + 2 * beyond
    grid = np.lib.stride_tricks.as_strided(
        image[pad - beyond:, pad - beyond:], shape=(height, width, size, size),
        strides=(ppc * step_row, ppc * step_col, step_row, step_col), writeable=False)
    return grid[:, :, rows, cols].reshape(height * width, len(rows)).T


def stack_growth(before, after, width: int, height: int, colours: Sequence[str]) -> np.ndarray:
    """Per cell (cell_names order), how much the stack's top disc grew between two still
    frames (rectified, as :func:`stack_changes`), in units of its colour's spread over
    the board's stacks, 0 at their median; 0 for an empty cell.

    A stone put on a stack sits one stone nearer the camera: its disc looks larger (and
    lies a millimetre or two off the one below). Per stack, the change between the frames
    is fitted, least squares over the disc, as the picture's gradients times a shift, a
    scaling about the cell's centre and a brightness offset (one Lucas-Kanade step);
    the growth is the scaling. A shadow that reaches a stack from one side darkens or
    shifts it but does not scale it about its own centre. On the generator's tuning games
    it makes black stones on the dark face stand out where the looks of
    :func:`stack_changes` hardly did; the referee ranks landings by it but does not
    commit on it alone (:data:`fenix_table.referee.tracker.GROWTH_WEIGHT`)."""
    stacks = np.flatnonzero([colour not in ("empty", None) for colour in colours])
    out = np.zeros(len(colours), np.float32)
    if len(stacks) < 2:
        return out
    ppc, pad = after.ppc, after.pad
    beyond, near, (at, left, right, up, down), x, y = _disc(ppc)
    old = _gather_windows(before.L, width, height, ppc, pad, beyond, *near)[:, stacks]
    new = _gather_windows(after.L, width, height, ppc, pad, beyond, *near)[:, stacks]
    both = old + new
    # The gradients of the two pictures' mean (central differences), the change, and
    # the scaling's pattern, each less its mean over the disc (the brightness offset).
    half = np.float32(0.25)
    looks = [(both[right] - both[left]) * half, (both[down] - both[up]) * half]
    looks.append(x * looks[0] + y * looks[1])
    looks.append(new[at] - old[at])
    looks = [v - v.mean(axis=0) for v in looks]
    sums = np.array([[np.einsum("pn,pn->n", a, b) for b in looks] for a in looks[:3]])
    normal = sums[:, :3].transpose(2, 0, 1) + np.float32(1e-3) * np.eye(3, dtype=np.float32)
    fit = np.linalg.solve(normal, sums[:, 3].T[:, :, None])[:, :, 0]
    # The picture grown by s about the centre changes by -s times (x, y) . gradient.
    out[stacks] = _robust(-fit[None, :, 2], [colours[i] for i in stacks], GROWTH_SPREAD_FLOOR)[0]
    return out


#: The board around a stack where its shadow falls, as fractions of a cell from the cell's
#: centre: beyond the stone's rim (0.40), short of the next stone's (0.60 and more).
SHADOW_RING = (0.42, 0.62)
#: How much darker (L units, the first harmonic of the ring's eight sectors averaged over
#: the board's stacks) the shadow side must be for the light's direction to count.
SHADOW_MIN = 5.0


@lru_cache(maxsize=8)
def _shadow_ring(ppc: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ring's pixel offsets (rows, columns) from a cell's first pixel and the
    (pixels, sectors) share matrix of its eight sectors, the first centred on the next
    file, the third on the next rank."""
    n = int(np.ceil(SHADOW_RING[1] * ppc)) + 1
    centre = (ppc - 1) / 2
    rows, cols = np.mgrid[-n:ppc + n, -n:ppc + n]
    r = np.hypot(rows - centre, cols - centre) / ppc
    ring = (r >= SHADOW_RING[0]) & (r <= SHADOW_RING[1])
    return rows[ring], cols[ring], _sector_share(np.arctan2(rows[ring] - centre, cols[ring] - centre))


def shadow_direction(still, width: int, height: int, colours: Sequence[str]
                     ) -> Optional[Tuple[float, float]]:
    """The way the stacks' shadows fall on the board in one still frame (a rectified
    image), as a unit vector in (file, rank) steps, or None when it does not show
    clearly (:data:`SHADOW_MIN`). Each stack darkens the board beside it on its shadow
    side: per stack, the ring just beyond its rim in eight sectors, less the ring's mean;
    the darkest side of their mean over the stacks (its first harmonic) is the shadow's.
    ``colours``: the board's colour per cell (cell_names order); stacks only are used.

    On the generator's tuning games (0-9, 20-39) the direction found from the start
    position was within about 45 degrees of the neighbour whose stack changed most
    beside a landing, in every game where that neighbour showed clearly."""
    ppc, pad = still.ppc, still.pad
    L = still.L
    at = cell_pixels(L.shape[:2], width, height, ppc, pad)["all"]
    stacks = [i for i, colour in enumerate(colours) if colour not in ("empty", None)]
    if not stacks:
        return None
    d_rows, d_cols, share = _shadow_ring(ppc)
    first = at[stacks][:, 0]
    rows = np.clip(first[:, None] // L.shape[1] + d_rows, 0, L.shape[0] - 1)
    cols = np.clip(first[:, None] % L.shape[1] + d_cols, 0, L.shape[1] - 1)
    sectors = L[rows, cols].astype(np.float32) @ share
    profile = (sectors - sectors.mean(axis=1, keepdims=True)).mean(axis=0)
    angles = np.arange(SECTORS) * (2 * np.pi / SECTORS)
    towards = -np.array([profile @ np.cos(angles), profile @ np.sin(angles)])
    strength = float(np.hypot(*towards))
    if strength < SHADOW_MIN:
        return None
    return float(towards[0] / strength), float(towards[1] / strength)


#: A pixel of the last frame with the hand is the hand's when it differs from the still
#: board after it by at least ``HAND_CHANGE`` (Lab distance) and is not a shadow: a
#: shadow keeps at least ``SHADOW_DIMMEST`` of the lightness and the board's chroma
#: dimmed by as much, give or take ``SHADOW_CHROMA``.
HAND_CHANGE = 8.0
SHADOW_DIMMEST = 0.45
SHADOW_CHROMA = 6.0
#: The hand reaches in over the board's edge: its pixels are the changed patches that
#: touch the rectified picture's edge, each at least ``HAND_PIECE`` and together at least
#: ``HAND_LEAST`` of a cell's area (fingers seen apart, the palm beyond the margin).
HAND_PIECE = 0.1
HAND_LEAST = 0.3
#: Changed patches smaller than this share of a cell's area are not the hand: a speck
#: just beyond the fingers would become their front, up to a cell from the landing. On
#: the generator's tuning games (0-9, 109 stacking plies with several candidates; the
#: spot worked out again from the same frames) the landing was the candidate nearest it
#: on all of them with it, on 107 without.
HAND_SPECK = 0.1
#: The fingers' front: the hand's pixels within ``FINGER_FRONT`` cells of its far end
#: along the fingers (the finger that put the stone down reaches farthest, give or take
#: a little). The stone lies ``POINT_BACK`` cells back from the front's middle, towards
#: the arm: on the generator's tuning games 0-1 the landing's centre was 0.23 cells back
#: (median). The fingers' direction is that of their own edges (the structure tensor of
#: the hand's outline within ``FINGER_REACH`` cells of the front), when it is within
#: ``FINGER_AGREE`` (cosine) of the way from the picture's edge to the hand's middle;
#: else that way. On the generator's tuning games (0-7, 90 plies) the landing was the
#: candidate nearest the spot on 88, on 61 with the way from the edge alone (a finger
#: beside the one that put the stone down then reaches farthest).
FINGER_FRONT = 0.2
POINT_BACK = 0.2
FINGER_REACH = 2.5
FINGER_AGREE = 0.5
#: The fingers' front must lie this far (cells) inside the rectified picture's edge.
FINGER_INSIDE = 0.25
#: The hand is found on pictures this many times smaller than the rectified board's.
HAND_SHRINK = 2


def _shrunk(image: np.ndarray) -> np.ndarray:
    """``image`` :data:`HAND_SHRINK` times smaller (each pixel the mean of those it
    covers)."""
    import cv2

    rows, cols = image.shape[:2]
    return cv2.resize(image, ((cols + HAND_SHRINK - 1) // HAND_SHRINK, (rows + HAND_SHRINK - 1) // HAND_SHRINK),
                      interpolation=cv2.INTER_AREA)


def _hand_pixels(hand: np.ndarray, still: np.ndarray, ppc: float) -> Tuple[np.ndarray, np.ndarray]:
    """(pixels (x, y) of the hand, the hand's mask) on shrunk Lab pictures of the frame
    with it and the still board (``ppc`` pixels per cell), or no pixels when no hand
    reaching in over the edge shows."""
    import cv2

    d = cv2.subtract(hand, still)
    change = cv2.transform(cv2.multiply(d, d), np.ones((1, 3), np.float32))
    moved = np.flatnonzero(change > HAND_CHANGE ** 2)
    mask = np.zeros(hand.shape[:2], np.uint8)
    none = np.zeros((0, 2), np.float32), mask
    if len(moved) < HAND_LEAST * ppc * ppc:
        return none
    h, s = hand.reshape(-1, 3)[moved], still.reshape(-1, 3)[moved]
    dim = (h[:, 0] + 1) / (s[:, 0] + 1)
    shaded = (dim >= SHADOW_DIMMEST) & (dim <= 1.02) & \
        (np.hypot(h[:, 1] - dim * s[:, 1], h[:, 2] - dim * s[:, 2]) < SHADOW_CHROMA)
    mask.flat[moved[~shaded]] = 1
    apart = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # A speck of change next to the fingers (noise, a stone's rim) would join them when
    # closed below and be taken for their front.
    _, labels, stats, _ = cv2.connectedComponentsWithStats(apart, connectivity=8)
    piece = stats[:, 4] >= HAND_SPECK * ppc * ppc
    piece[0] = False
    apart = piece[labels].astype(np.uint8)
    # Closed, the fingers seen apart and the palm make one hand.
    mask = cv2.morphologyEx(apart, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rows, cols = mask.shape
    x, y, w, hgt, area = stats[1:].T
    edge = (x == 0) | (y == 0) | (x + w == cols) | (y + hgt == rows)
    keep = np.concatenate([[False], edge & (area >= HAND_PIECE * ppc * ppc)])
    if stats[keep, 4].sum() < HAND_LEAST * ppc * ppc:
        return none
    hand_mask = keep[labels]
    ys, xs = np.nonzero(hand_mask)
    hand_mask &= apart > 0   # the fingers' own edges show their direction
    return np.stack([xs, ys], 1).astype(np.float32), hand_mask


def pointed_at(frames: Sequence, still) -> Optional[Tuple[float, float]]:
    """Where the hand last seen in ``frames`` (rectified frames before the still board,
    oldest first; the newest that shows a hand counts) put a stone down, against the
    still board after them (``still``), in board coordinates (cells: a1's centre is
    (0.5, 0.5)); None when no hand reaching in over the board's edge shows.

    The hand is what changed between the two frames, shadows left out. Its arm comes in
    over the edge: from where it crosses the picture's edge towards the hand's middle is
    the way it points, the front of its fingers (:data:`FINGER_FRONT`) is its far end,
    and the stone lies a little back from the front's middle (:data:`POINT_BACK`)."""
    import cv2

    ppc = still.ppc / HAND_SHRINK
    after = _shrunk(still.lab)
    for frame in reversed(frames):
        if frame.lab.shape != still.lab.shape:
            continue
        # A frame whose lightness hardly changed anywhere shows no hand (the first
        # frame without it often comes first).
        lighter = np.abs(_shrunk(frame.L) - after[..., 0]) > HAND_CHANGE / 2
        if np.count_nonzero(lighter) < HAND_LEAST * ppc * ppc:
            continue
        pixels, mask = _hand_pixels(_shrunk(frame.lab), after, ppc)
        if len(pixels):
            break
    else:
        return None
    rows, cols = mask.shape
    border = (pixels[:, 0] == 0) | (pixels[:, 1] == 0) | \
        (pixels[:, 0] == cols - 1) | (pixels[:, 1] == rows - 1)
    middle = pixels.mean(axis=0)
    back = pixels[border].mean(axis=0) - middle
    length = float(np.hypot(*back))
    if length < 1e-6:
        return None
    back /= length
    along = (pixels - middle) @ back
    front = pixels[along <= along.min() + FINGER_FRONT * ppc].mean(axis=0)
    # The fingers' own direction, along their long edges near the front: the way from
    # the edge to the middle is off by as much as the arm comes in across a corner.
    reach = int(round(FINGER_REACH * ppc))
    x0, y0 = (int(v) for v in np.round(front))
    window = mask[max(y0 - reach, 0):y0 + reach + 1, max(x0 - reach, 0):x0 + reach + 1].astype(np.float32)
    gx = cv2.Sobel(window, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(window, cv2.CV_32F, 0, 1, ksize=3)
    tensor = np.array([[(gx * gx).sum(), (gx * gy).sum()], [(gx * gy).sum(), (gy * gy).sum()]])
    values, axes = np.linalg.eigh(tensor)
    if values[1] > 0:
        edges = axes[:, 0] if axes[:, 0] @ back > 0 else -axes[:, 0]
        if edges @ back >= FINGER_AGREE:
            back = edges
            along = (pixels - middle) @ back
            front = pixels[along <= along.min() + FINGER_FRONT * ppc].mean(axis=0)
    if min(front[0], front[1], cols - 1 - front[0], rows - 1 - front[1]) < FINGER_INSIDE * ppc:
        return None     # the fingers' front at the picture's edge: their end is not in view
    point = (front + 0.5) * HAND_SHRINK + POINT_BACK * still.ppc * back - still.pad
    return float(point[0] / still.ppc), float(point[1] / still.ppc)
