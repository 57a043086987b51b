"""The English catalogue of everything the engine says: explanation and game-end codes.

Explanations and game results are structured (a code plus named parameters: cells, moves,
values, sides, piece names) so the display can render them in any language; this is the
English template for each code. ``fenix_table.display.i18n`` holds the other languages,
keyed by the same codes with the same ``{named}`` placeholders.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

MESSAGES: Mapping[str, str] = MappingProxyType({
    # The attempted move is fine.
    "legal": "{move} is legal",
    # Malformed attempts.
    "no_change": "nothing moved",
    "empty_cell": "there is no piece on {cell}",
    "out_of_turn": "it is {side}'s turn: the {color} {piece} on {cell} may not move",
    "occupied": "{cell} is occupied: a piece only moves to an empty cell",
    "stones_changed": "the stones on the board changed in a way no move explains ({cells})",
    # Preparing for battle.
    "setup_stack_only": "while preparing for battle every move puts a soldier on another of your pieces",
    "setup_soldier_only": "only a soldier may be stacked: {cell} holds a {piece}",
    "setup_onto_king": "nothing may be stacked on the King on {cell}",
    "setup_one_king": "you already have a King: only one is allowed",
    "setup_limit": "Generals and King together may be at most 4: put the soldier on a General instead",
    "setup_reach": "with orthogonal setup the soldier must come from a cell next to {cell}",
    # Piece movement.
    "soldier_step": "{cell} is a soldier: it steps one cell orthogonally",
    "general_straight": "{cell} is a General: it moves in straight lines",
    "general_blocked": "{cell} is a General: its path is blocked at {block}",
    "king_step": "{cell} is a King: it steps one cell in any direction",
    "only_king_diagonal": "only the King may capture diagonally",
    "jump_own": "a piece cannot jump over its own side's piece on {cell}",
    "jump_empty": "there is no piece to capture between {frm} and {to}",
    "no_capture": "there is no capture from {frm} to {to}",
    # Captures.
    "capture_compulsory": "capture is compulsory: {move} takes {value}",
    "larger_capture": "a larger capture exists: {move} takes {value}",
    "chain_continues": "the capture chain must go on from {cell}: {move} takes {value}",
    "jumped_blocks": "{cell} was already jumped this turn: it blocks and cannot be jumped again",
    # Duties after losses.
    "king_duty": "your King must be recreated first: {move}",
    "king_reach": "the King is recreated by a soldier next to a General, e.g. {move}",
    "stack_not_allowed": "stacking is only allowed while preparing for battle, to recreate the King, or to create a General after losing one",
    "general_right_needs_soldiers": "a General is created by putting a soldier on another soldier",
    "general_reach": "the new General's soldier must come from a cell next to {cell}",
    "stack_too_high": "a stack has at most 3 stones",
    # Against the computer (the referee holds the computer's chosen move).
    "computer_asked": "the computer asked for {asked}, not {move}: put the stones back and play {asked}",
    "computer_not_ready": "{move} moves the computer's piece before it has chosen: put the stones back and wait",
    # Game over.
    "game_over": "the game is over: {reason}",
    # Game-end reasons (Game.status).
    "ongoing": "the game goes on",
    "king_lost": "{loser} lost the King and cannot recreate it: {winner} wins",
    "no_move_loss": "{loser} has no legal move: {winner} wins",
    "no_move_draw": "{side} has no legal move: draw",
    "agreement": "draw by agreement",
    "resignation": "{loser} resigned: {winner} wins",
    "repetition_draw": "the same position occurred three times: draw",
    "repetition_loss": "{loser} repeated the position a third time: {winner} wins",
    "no_capture_limit": "{plies} plies without a capture: draw",
})


def render(code: str, params: Mapping[str, object]) -> str:
    """The English sentence for ``code`` with its parameters filled in."""
    return MESSAGES[code].format(**params)
