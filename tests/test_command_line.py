"""What a new user sees first: the help, the listing of odd inputs, perfasm runs told apart, HotSpot's spelling
of a method accepted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from corpus import DATA, run_cli

from asmcfg.cli import main
from asmcfg.cli.diff import diff_command

ROOT = Path(__file__).resolve().parent.parent
ENUM_SWITCH = (DATA / "perfasm" / "public" / "ionutbalosin__jvm-performance-benchmarks"
               / "results__jdk-21__x86_64__perfasm__openjdk-hotspot-vm__EnumSwitchBenchmark.asm.gz")
SWITCHES = DATA / "nohsdis" / "jdk17-Switches-print-nohsdis.txt"
TRAPS_LOG = DATA / "logc" / "javac-jdk17-traps.xml.gz"
MAIN_SECTIONS = ["What to read:", "Which compilation:", "The run over time:", "What to write:", "Heat and logs:",
                 "Drawing:", "Other:"]
DIFF_SECTIONS = ["The two sides:", "What to write:", "The gate:", "Drawing:", "Other:"]


def sections(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.fullmatch(r"[A-Z][\w ]+:", line)]


def examples(text: str) -> list[str]:
    """The command lines under `Examples:`, which must be the help's last lines."""
    tail = text.split("  Examples:\n", 1)[1].splitlines()
    return [line.strip() for line in tail if line.strip().startswith("asmcfg ")]


def test_help_groups_the_options_and_ends_with_three_examples() -> None:
    code, out, _ = run_cli("--help")
    assert code == 0
    assert sections(out) == MAIN_SECTIONS
    other = out.split("\nOther:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in other.splitlines()] == ["--debug", "--version", "-h,"]  # nothing unplaced
    assert examples(out) == ["asmcfg run.log --list",
                             "asmcfg run.log --method Hot.hotMethod --html hot.html --source-path src",
                             "asmcfg perfasm.txt --svg hot.svg"]
    assert out.rstrip().endswith("asmcfg perfasm.txt --svg hot.svg")
    assert ".gz, .xz or .bz2" in out and "an `asmcfg diff" in out and "a `asmcfg" not in out


def test_diff_help_groups_the_sides_the_outputs_and_the_gate() -> None:
    code, out, _ = run_cli("diff", "--help")
    assert code == 0
    assert sections(out) == DIFF_SECTIONS
    gate = out.split("\nThe gate:\n", 1)[1].split("\n\n", 1)[0]
    assert gate.split()[0] == "--fail-on"
    assert "--old-method PATTERN" in out.split("\nThe two sides:\n", 1)[1].split("\n\n", 1)[0]
    assert len(examples(out)) == 3 and examples(out)[2].endswith("--fail-on new-trap,grew:10")


@pytest.mark.parametrize("columns", [80, 100])
def test_every_help_line_fits_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    from asmcfg.cli.whatif import whatif_command

    for command, name in ((main, "asmcfg"), (diff_command, "asmcfg diff"), (whatif_command, "asmcfg whatif")):
        text = command.get_help(click.Context(command, info_name=name, **command.context_settings))
        assert max(len(line) for line in text.splitlines()) <= columns - 2


def test_help_as_a_word_prints_the_help() -> None:
    assert run_cli("help") == run_cli("--help")
    code, out, _ = run_cli("help", "diff")
    assert (code, out) == run_cli("diff", "--help")[:2] and out.startswith("Usage: asmcfg diff [OPTIONS] OLD [NEW]")
    code, out, err = run_cli("help", "bogus")
    assert (code, out) == (2, "") and "no help on 'bogus'" in err and "diff|serve|record" in err


@pytest.mark.parametrize(("flag", "name"), [("--svg", "out.png"), ("--html", "page.pdf"), ("--json", "x.svg")])
def test_an_output_named_for_another_format_is_a_usage_error(flag: str, name: str, tmp_path: Path) -> None:
    target = tmp_path / name
    code, _, err = run_cli(str(ROOT / "examples" / "c2-compiled-realTest.S"), flag, str(target))
    assert code == 2 and f"{flag} writes" in err and name in err.replace(str(tmp_path) + "/", "")
    assert not target.exists()
    code, _, err = run_cli(str(ROOT / "examples" / "c2-compiled-realTest.S"), "--json", str(tmp_path / "x.txt"), "-q")
    assert code == 0, "a name that says no format is the user's choice"


def test_list_of_a_log_without_assembly_prints_the_error_alone() -> None:
    code, out, err = run_cli(str(ROOT / "tests" / "bad" / "log_without_assembly.xml"), "--list")
    assert code == 1 and out == ""
    assert err.strip().endswith("this -XX:+LogCompilation log holds no PrintAssembly output (add -XX:+PrintAssembly, "
                                "or -XX:CompileCommand=print,Class::method, to the run that writes it)")


def test_a_markdown_file_is_named_as_text_not_as_a_header_without_code(tmp_path: Path) -> None:
    notes = tmp_path / "NOTES.md"  # prose quoting the header words, as the README once did
    notes.write_text("# asmcfg\n\nSee [the docs](docs/index.md).\n\n## Inputs\n\n"
                     "`Decoding compiled method` means JDK 8; `Compiled method (c2)` starts a method.\n\n"
                     "| input | JDK |\n|---|---|\n| hsdis | 6-25 |\n")
    code, out, err = run_cli(str(notes), "--list")
    assert code == 1 and out == ""
    assert err == (f"asmcfg: {notes}:1: no HotSpot assembly found: this looks like Markdown text, not JVM output "
                   "(give asmcfg what the JVM prints with -XX:+PrintAssembly; see asmcfg --help)\n")
    code, _, err = run_cli(str(ROOT / "tests" / "bad" / "header_only.txt"))
    assert code == 1 and ":4: a compiled-method header but no instructions under it" in err


def test_list_of_several_jmh_runs_names_each_runs_benchmark_and_parameters() -> None:
    code, out, _ = run_cli(str(ENUM_SWITCH), "--list")
    assert code == 0
    head, *rows = out.splitlines()
    assert head.split()[-4:] == ["line", "share", "run", "method"]
    runs = [re.search(r"EnumSwitchBenchmark\.\w+ \(branches = \d+\)", row) for row in rows]
    labels = [m.group(0) for m in runs if m]
    assert len(labels) == len(rows) == 12 and len(set(labels)) == 12
    assert labels[:4] == [f"EnumSwitchBenchmark.chained_ifs (branches = {n})" for n in (3, 6, 12, 24)]


def test_a_single_run_lists_no_run_column() -> None:
    code, out, _ = run_cli(str(DATA / "perfasm" / "jdk17-PerfasmEdge" / "toobig-perfasm-console.txt"), "--list")
    assert code == 0 and " run " not in out.splitlines()[0] and out.splitlines()[0].endswith("share  method")


def test_hot_paths_are_distinct_block_sets_and_the_cycle_is_not_called_a_loop() -> None:
    code, _, err = run_cli(str(ENUM_SWITCH), "--compile-id", "565", "-q", "--json", "-")
    assert code == 0 and err == ""
    _, _, err = run_cli(str(ENUM_SWITCH), "--compile-id", "565", "--dot", "/dev/null")
    title = err.splitlines()[1]
    assert "74 instructions, 28 blocks, 0 loops;" in title
    rows = [line for line in err.splitlines() if line.startswith("│ ") and "%" in line.split("│")[2]]
    paths = [row.split("│")[3].split() for row in rows if row.split("│")[3].strip().startswith("B")]
    assert len(paths) == 3 and len({frozenset(p) for p in paths}) == 3
    assert "│ 1 cycle │" in err and "│ 1 loop " not in err
    assert "hot path 1 goes round a cycle of the printed regions that the loops count above leaves out" in err


def test_counts_of_one_are_singular() -> None:
    _, _, err = run_cli(str(SWITCHES), "--compile-id", "16", "--dot", "/dev/null")
    assert "196 instructions, 60 blocks, 1 loop;" in err and "1 loops" not in err


def test_64_bit_immediates_decoded_from_hex_are_printed_in_hex() -> None:
    code, out, err = run_cli(str(DATA / "nohsdis" / "jdk25-ExcSyncAlloc-print-nohsdis.txt"), "--json", "-")
    assert code == 0
    blocks = json.loads(out)["methods"][0]["blocks"]
    operands = [i["operands"] for block in blocks for i in block["instructions"]]
    assert "$0xffffffffffffffff, %rax" in operands
    assert not [o for o in operands if re.search(r"\$\d{10,}", o)]
    assert ("'immutable data' section: JDK 24+; the input names no JDK: trap reasons named with JDK 25's table, "
            "the newest it allows (--jdk N to choose another)") in err
    assert "newest table assumed" not in err


@pytest.mark.parametrize("spelling", ["Switches.run", "Switches::run", "Switches/run", "Swit*.run"])
def test_method_in_hotspots_spelling_selects_the_method(spelling: str) -> None:
    code, out, _ = run_cli(str(SWITCHES), "--method", spelling, "--list")
    assert code == 0
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [["c1", "14"], ["c1", "15"], ["c2", "16"],
                                                                   ["c2", "17"]]


@pytest.mark.parametrize("spelling", ["java.lang.String.charAt", "java/lang/String.charAt", "String.charAt"])
def test_method_with_a_package_in_either_spelling(spelling: str) -> None:
    code, out, _ = run_cli(str(TRAPS_LOG), "--method", spelling, "--list")
    assert code == 0 and out.splitlines()[1].split()[-1] == "java.lang.String::charAt"


def test_a_dotted_name_that_is_not_there_is_still_refused_with_a_suggestion() -> None:
    code, _, err = run_cli(str(SWITCHES), "--method", "Switches.runn")
    assert code == 1 and "method 'Switches.runn' not found" in err and "did you mean 'Switches::run'" in err


def test_diff_accepts_the_dotted_spelling() -> None:
    before, after = DATA / "diff" / "jdk17-Ring-before-nohsdis.txt", DATA / "diff" / "jdk17-Ring-after-nohsdis.txt"
    dotted = run_cli("diff", str(before), str(after), "--method", "Ring.sum", "--json", "-")
    colons = run_cli("diff", str(before), str(after), "--method", "Ring::sum", "--json", "-")
    assert dotted[0] == 0 and dotted == colons
    assert [json.loads(dotted[1])[side]["name"] for side in ("old", "new")] == ["Ring::sum", "Ring::sum"]



@pytest.mark.parametrize("page", ["index.md", "inputs.md"])
def test_the_first_pages_show_record_in_commands_that_fit_the_column(page: str) -> None:
    # at 1280 px the docs site's content column holds about 80 characters of code
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    assert "asmcfg record" in "".join(blocks[:2])
    assert [line for block in blocks for line in block.splitlines() if len(line) > 76] == []


def test_an_output_flag_followed_by_a_flag_is_a_usage_error(tmp_path: Path) -> None:
    # `--jsonl --facts` wrote JSON Lines into a file named `--facts`
    code, _, err = run_cli(str(ROOT / "examples" / "c2-compiled-realTest.S"), "--jsonl", "--facts")
    assert code == 2 and "--jsonl takes a FILE" in err
    assert not (Path.cwd() / "--facts").exists()
