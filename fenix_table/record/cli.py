"""``fenix-table games``: list, show, export, import, review and delete recorded games."""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "games", help="list, show, export, import, review or delete recorded games",
        description="The game archive (SQLite in the user data folder unless --db is given).")
    actions = parser.add_subparsers(dest="games_action", metavar="ACTION")
    actions.required = True

    def action(name, help_text):
        sub = actions.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--db", metavar="FILE",
                         help="game archive (default: record.database in the configuration, "
                              "else the user data folder)")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.set_defaults(handler=run)
        return sub

    action("list", "one line per game: id, start, board, rules, result, moves, players")
    show = action("show", "one game: its details, moves and events")
    show.add_argument("id", type=_game_id)
    show.add_argument("--frames", metavar="DIR",
                      help="also write the camera frames kept with its moves as "
                           "DIR/ply-NNN.jpg (record.save_frames)")
    export = action("export", "write a game as FGN text")
    export.add_argument("id", type=_game_id)
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    action("import", "store the game of an FGN file (checked by the rules engine)") \
        .add_argument("file", help="FGN file ('-' for stdin)")
    action("delete", "delete a game").add_argument("id", type=_game_id)
    review = action("review", "mark the moves of a game that lose material by force or miss "
                              "a clearly better move, with the better move and the scores")
    review.add_argument("id", type=_game_id)
    review.add_argument("--movetime", metavar="SECONDS", default="0.3",
                        help="search time per move (default 0.3)")
    review.add_argument("--fgn", metavar="FILE",
                        help="also write the game as FGN with the review as comments "
                             "(a new file; an existing one is never overwritten)")


def _game_id(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"game id {text!r} is not a whole number")
    if len(text) > 18:   # SQLite ids are 64-bit
        raise argparse.ArgumentTypeError(f"game id {text[:30]} is too large")
    return int(text)


def run(args) -> int:
    from ..config import configured_database
    from ..errors import RecordError
    from .store import GameStore

    out = sys.stdout
    with GameStore(configured_database(args.db, getattr(args, "config", None))) as store:
        what = args.games_action
        if what == "list":
            games = store.list_games()
            if args.json:
                for game in games:
                    out.write(json.dumps(game.to_json()) + "\n")
            elif not games:
                out.write(f"no games in {store.path}\n")
            else:
                for g in games:
                    out.write(f"{g.id:>4}  {g.started[:16].replace('T', ' ')}  {g.board}  "
                              f"{g.result:<7}  {g.moves:>3} plies  {g.red} - {g.black}  "
                              f"({g.rules}, {g.mode})\n")
        elif what == "show":
            _show(store, args.id, args.json, out)
            if args.frames:
                written = _write_frames(store, args.id, args.frames)
                print(f"{written} frames written to {args.frames}", file=sys.stderr)
        elif what == "export":
            text = store.export_fgn(args.id)
            if args.output:
                try:
                    with open(args.output, "w", encoding="utf-8") as fh:
                        fh.write(text)
                except OSError as error:
                    raise RecordError(f"cannot write {args.output}: {error.strerror}") from None
            else:
                out.write(text)
        elif what == "import":
            text = _read(args.file)
            game_id = store.import_fgn(text)
            out.write(json.dumps({"id": game_id}) + "\n" if args.json
                      else f"imported game {game_id}\n")
        elif what == "review":
            _review(store, args, out)
        elif what == "delete":
            store.delete(args.id)
            out.write(json.dumps({"deleted": args.id}) + "\n" if args.json
                      else f"deleted game {args.id}\n")
    return 0


def _review(store, args, out) -> None:
    """The coach's review of a stored game (``fenix_table.opponent.coach.review``)."""
    from ..errors import RecordError
    from ..opponent.cli import parse_movetime
    from ..opponent.coach import review, review_comment
    from ..rules import format_fgn
    from .fgn import record_of, replay_stored

    movetime = parse_movetime(args.movetime)
    replayed = replay_stored(store, args.id)
    record = record_of(store, args.id) if args.fgn else None
    if args.fgn:   # refuse a taken name before the search spends its minutes
        import os
        if os.path.exists(args.fgn):
            raise RecordError(f"{args.fgn} exists already; choose a new file name")
    notes = review(replayed.start, replayed.rules, replayed.plies, movetime=movetime)
    if args.json:
        for note in notes:
            out.write(json.dumps(note.to_json()) + "\n")
    elif not notes:
        out.write(f"game {args.id}: no move marked ({len(replayed.plies)} plies reviewed)\n")
    else:
        for note in notes:
            out.write(f"{note.ply:>4}. {note.side:<5} {note.played:<12} {note.text}\n")
    if args.fgn:
        # A review note after ply n goes with the n-th ply's move (played-on plies are
        # comments, not moves, and are never judged).
        index_of, index = {}, -1
        for ply in replayed.plies:
            if not ply.played_on:
                index += 1
            index_of[ply.ply] = index
        for note in notes:
            record.comments.setdefault(index_of[note.ply], []).append(review_comment(note))
        try:
            with open(args.fgn, "x", encoding="utf-8") as fh:
                fh.write(format_fgn(record))
        except FileExistsError:
            raise RecordError(f"{args.fgn} exists already; choose a new file name") from None
        except OSError as error:
            raise RecordError(f"cannot write {args.fgn}: {error.strerror}") from None
        print(f"review written to {args.fgn}", file=sys.stderr)


def _write_frames(store, game_id: int, folder: str) -> int:
    """Write the JPEG kept with each ply as ``folder/ply-NNN.jpg``; never over a file that
    is already there. Returns how many were written."""
    import os

    from ..errors import RecordError

    frames = [(m.ply, store.frame(game_id, m.ply)) for m in store.moves(game_id)]
    frames = [(ply, jpeg) for ply, jpeg in frames if jpeg is not None]
    try:
        os.makedirs(folder, exist_ok=True)
        for ply, jpeg in frames:
            path = os.path.join(folder, f"ply-{ply:03d}.jpg")
            with open(path, "xb") as fh:
                fh.write(jpeg)
    except FileExistsError as error:
        raise RecordError(f"{error.filename} exists already; choose an empty folder") from None
    except OSError as error:
        raise RecordError(f"cannot write frames to {folder}: {error.strerror}") from None
    return len(frames)


def _read(path: str) -> str:
    from ..errors import RecordError

    from ..rules.fgn import MAX_FGN_CHARS

    limit = MAX_FGN_CHARS * 4   # bytes: UTF-8 takes at most 4 per character
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(limit + 1) if stream is not None else \
                sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
        else:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
        if len(data) > limit:
            raise RecordError(f"{path}: larger than {limit // 1_000_000} MB; not a game record "
                              f"(nothing imported)")
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror}") from None


def _show(store, game_id: int, as_json: bool, out) -> None:
    game = store.game(game_id)
    moves = store.moves(game_id)
    events = store.events(game_id)
    if as_json:
        data = game.to_json()
        data.update(start_fpn=game.start_fpn, tags=game.tags,
                    plies=[{"ply": m.ply, "move": m.token, "fpn": m.fpn_after, "time": m.time,
                            "frame": m.frame, "played_on": m.played_on,
                            "jpeg": store.frame(game_id, m.ply) is not None} for m in moves],
                    events=[dict(event.to_json(), ply=ply) for ply, event in events])
        out.write(json.dumps(data) + "\n")
        return
    out.write(f"game {game.id}: {game.red} - {game.black}, {game.board}, rules {game.rules}, "
              f"{game.mode}\n")
    out.write(f"started {game.started}" + (f", finished {game.finished}" if game.finished else "")
              + f"; result {game.result}" + (f" ({game.reason})" if game.reason else "") + "\n")
    out.write(f"start {game.start_fpn}\n")
    from ..referee.events import describe

    by_ply = {}
    for ply, event in events:
        by_ply.setdefault(ply, []).append(event)
    for event in by_ply.get(0, []):
        out.write(f"       {describe(event)}\n")
    for m in moves:
        mark = "  (played on)" if m.played_on else ""
        out.write(f"{m.ply:>4}. {m.token:<12} {m.fpn_after}{mark}\n")
        for event in by_ply.get(m.ply, []):
            out.write(f"       {describe(event)}\n")
