"""The top-level ``fenix-table`` parser: each command's module is imported only when that
command is run, while --help and errors still list every command."""
import argparse
import importlib
import subprocess
import sys

import pytest

from fenix_table import cli
from fenix_table.rules import START_FPN


def registered(module_name):
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(module_name).register(subparsers)
    return subparsers, tuple(subparsers.choices)


@pytest.mark.parametrize("module_name", list(cli.COMMAND_MODULES))
def test_command_table_names_what_each_module_registers(module_name):
    assert registered(module_name)[1] == cli.COMMAND_MODULES[module_name]


@pytest.mark.parametrize("command", list(cli.MODULE_OF_COMMAND))
def test_a_command_alone_parses_and_helps_as_in_the_whole_parser(command):
    whole, alone = cli.build_parser(), cli.build_parser(command)
    assert command in alone._subparsers._group_actions[0].choices
    for parser in (whole, alone):
        choices = parser._subparsers._group_actions[0].choices
        assert choices[command].format_help() == \
            whole._subparsers._group_actions[0].choices[command].format_help()
    assert alone.format_usage() == whole.format_usage()


def test_whole_parser_lists_every_command_in_order():
    help_text = cli.build_parser().format_help()
    positions = [help_text.index(f"\n    {name} ") for name in cli.MODULE_OF_COMMAND]
    assert positions == sorted(positions)


@pytest.mark.parametrize("argv, command", [
    (["legal", "--position", "x"], "legal"),
    (["--config", "legal", "run"], "run"),       # "legal" is the file name here
    (["--config=a.toml", "games", "list"], "games"),
    (["--help"], None), (["-h", "legal"], None), (["--conf", "a", "run"], None),
    (["--config"], None), ([], None),
])
def test_command_named(argv, command):
    assert cli.command_named(argv) == command


def run(*args):
    return subprocess.run([sys.executable, "-m", "fenix_table.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_legal_imports_no_other_stage():
    code = ("import sys; from fenix_table.cli import main; "
            f"main(['legal', '--position', {START_FPN['7x8']!r}]); "
            "print('STAGES', sorted({m.split('.')[1] for m in sys.modules "
            "if m.startswith('fenix_table.')}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip().splitlines()[-1] == \
        "STAGES ['board', 'cli', 'errors', 'rules']", result.stdout + result.stderr


def test_help_and_unknown_commands_list_every_command():
    result = run("--help")
    assert result.returncode == 0
    for name in cli.MODULE_OF_COMMAND:
        assert f"\n    {name} " in result.stdout
    result = run("nonsense")
    assert result.returncode == 2
    assert "invalid choice: 'nonsense' (choose from " + \
        ", ".join(repr(name) for name in cli.MODULE_OF_COMMAND) + ")" in result.stderr
