"""``fenix-table club serve`` (the viewer) and ``fenix-table club simulate`` (N tables)."""
from __future__ import annotations

import argparse
import logging
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "club", help="the club broadcast: a web viewer of every table, or simulated tables",
        description="Every table's live game on an MQTT broker (the [club] section of the "
                    "configuration switches a table's broadcast on).")
    actions = parser.add_subparsers(dest="club_command", metavar="ACTION")
    actions.required = True

    def broker_options(sub, who: str) -> None:
        sub.add_argument("--broker", metavar="URL",
                         help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: club.broker "
                              "in the configuration)")
        sub.add_argument("--club", metavar="NAME",
                         help="the club's name in the topics (default: club.club)")
        sub.add_argument("--ca-file", metavar="FILE",
                         help="the club's CA certificate for mqtts:// (default: club.ca_file)")
        if who == "viewer":
            sub.add_argument("--username", metavar="NAME", help="the viewer's broker login")
            sub.add_argument("--password-file", metavar="FILE",
                             help="file holding the viewer's broker password")
        else:
            sub.add_argument("--credentials", metavar="FILE",
                             help="lines TABLE:PASSWORD; each table logs in as its name")

    serve = actions.add_parser(
        "serve", help="the web page of every table's game (read-only)",
        description="Follow the club's tables on the broker and serve one web page: every "
                    "board live, a click for one game, FGN export; /api/tables as JSON.")
    broker_options(serve, "viewer")
    serve.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:8080",
                       help="where the page is served (default 127.0.0.1:8080; 0.0.0.0:8080 "
                            "for phones on the club's network)")
    serve.add_argument("--arbiter-password-file", metavar="FILE",
                       help="the arbiter's view (/arbiter, violations explained) asks for "
                            "this password; without it every viewer sees violations")
    serve.set_defaults(handler=run_serve)

    simulate = actions.add_parser(
        "simulate", help="N tables playing generated games through the table driver",
        description="Tables playing random legal games through the real table driver and "
                    "club broadcast, for demos, tests and the benchmark.")
    broker_options(simulate, "tables")
    simulate.add_argument("--tables", type=_positive(int, 500), default=4, metavar="N",
                          help="how many tables (default 4)")
    simulate.add_argument("--rate", type=_positive(float, 100.0), default=1.0,
                          metavar="MOVES_PER_S", help="moves a second at each table (default 1)")
    simulate.add_argument("--games", type=_positive(int, 10_000), default=1, metavar="K",
                          help="games each table plays (default 1)")
    simulate.add_argument("--max-plies", type=_positive(int, 2000), metavar="N",
                          help="a game still going after N plies ends in an agreed draw")
    simulate.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    simulate.add_argument("--record", metavar="FOLDER",
                          help="keep each table's games in FOLDER/<table>.sqlite3")
    simulate.set_defaults(handler=run_simulate)


def _positive(kind, high):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0 < value <= high:
            raise argparse.ArgumentTypeError(f"{text}: expected more than 0, at most {high}")
        return value
    return parse


def _broker(args, config, username=None, password=None):
    from ..errors import ConfigError
    from . import schema
    from .mqtt import Broker, parse_url

    url = args.broker or config.club.broker
    parse_url(url)
    club = args.club or config.club.club
    try:
        schema.check_name("club", club)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return Broker(url, username=username, password=password,
                  ca_file=args.ca_file or config.club.ca_file or None), club


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s",
                        stream=sys.stderr)


def run_serve(args) -> int:
    import threading

    from ..config import load_config
    from ..errors import ConfigError
    from .mqtt import read_password
    from .viewer import Club, Subscriber
    from .web import ViewerServer

    config = load_config(getattr(args, "config", None))
    password = read_password(args.password_file) if args.password_file else None
    if password is not None and not args.username:
        raise ConfigError("--password-file needs --username")
    broker, name = _broker(args, config, args.username, password)
    arbiter = read_password(args.arbiter_password_file) if args.arbiter_password_file else None
    host, _, port = args.listen.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--listen {args.listen!r}: expected HOST:PORT")
    _logging()
    club = Club(name)
    try:
        server = ViewerServer((host.strip("[]"), int(port)), club, arbiter_password=arbiter,
                              club_name=name)
    except OSError as error:
        raise ConfigError(f"--listen {args.listen}: {error.strerror or error}") from None
    subscriber = Subscriber(broker, club)
    where = f"http://{host}:{server.server_address[1]}/"
    logging.getLogger(__name__).info("club %s: the page is at %s (broker %s)", name, where,
                                     broker.url)
    print(f"serving {where}", flush=True)
    stop = threading.Event()
    _on_signals(stop, server)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        subscriber.close()
        server.server_close()
    return 0


def _on_signals(stop, server=None) -> None:
    import signal
    import threading

    def handle(signum, frame):
        stop.set()
        if server is not None:
            threading.Thread(target=server.shutdown, daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handle)


def run_simulate(args) -> int:
    import os
    import threading

    from ..config import load_config
    from ..errors import ConfigError
    from ..files import read_text
    from .simulate import Club

    config = load_config(getattr(args, "config", None))
    broker, name = _broker(args, config)
    credentials = None
    if args.credentials:
        credentials = {}
        text = read_text(args.credentials, 1_000_000, "credentials file", ConfigError)
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip() and not line.lstrip().startswith("#"):
                table, sep, password = line.strip().partition(":")
                if not sep:
                    raise ConfigError(f"{args.credentials}, line {number}: expected "
                                      f"TABLE:PASSWORD")
                credentials[table] = password
        missing = [f"table{i:02d}" for i in range(1, args.tables + 1)
                   if f"table{i:02d}" not in credentials]
        if missing:
            raise ConfigError(f"{args.credentials}: no password for {', '.join(missing[:5])}")
    if args.record:
        os.makedirs(args.record, exist_ok=True)
    _logging()
    sim = Club(broker, args.tables, club=name, rate=args.rate, games=args.games,
               max_plies=args.max_plies, seed=args.seed, credentials=credentials,
               record=args.record)
    stop = threading.Event()
    _on_signals(stop)
    sim.start()
    print(f"{args.tables} tables playing on {broker.url} (club {name})", flush=True)
    try:
        while not stop.is_set() and not sim.wait(0.5):
            pass
    finally:
        sim.stop()
    plies = sum(len(g) for p in sim.players.values() for g in p.played)
    games = sum(p.games_done for p in sim.players.values())
    print(f"{games} games, {plies} plies played", flush=True)
    return 0
