#!/usr/bin/env python3
"""Writes a command's man page (man(7) roff) from its own help.

swift-argument-parser's `--experimental-dump-help` prints every command,
subcommand and argument with its help as JSON; this turns it into a page
whose words are what `--help` says (the same abstracts, discussions,
"(default: X)" notes and usage lines), so the page cannot drift from the
binary it is installed with. The argument parser's own generate-manual
plugin would do it, but it cannot build here (it builds the test targets).

  manpage.py --section 1 .build/release/tongban > tongban.1
  manpage.py --section 8 --file /usr/lib/systemd/system/tongban-server.service='the unit' \\
      .build/release/tongban-server > tongban-server.8

The page has NAME, SYNOPSIS, DESCRIPTION, ARGUMENTS, the titled option
groups, OPTIONS, then COMMANDS: one subsection per visible subcommand,
depth first (`tongban group create`), each with its usage, description,
arguments and options; then FILES (--file), SEE ALSO (--see-also) and
VERSION (what `--version` prints, also in the footer). The date is
$SOURCE_DATE_EPOCH's, else the last commit's, else today's.
Standard library only.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import textwrap

# Flags every command's --help lists at its end (argumentsForHelp); they are
# not part of a command's usage line.
BUILTIN = {"help", "version"}


def esc_inline(text):
    """Escapes text for roff: backslashes, hyphens (so options stay ASCII
    "-" when rendered), quotes that groff would curl, and non-ASCII as
    \\[uXXXX] (no preconv needed, any groff or mandoc renders it)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ch == "'":
            out.append("\\(aq")
        elif ch == "`":
            out.append("\\(ga")
        elif ord(ch) > 127:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def esc(text):
    """Running text: escaped, its lines wrapped at spaces to under 80 bytes
    (roff fills them again), none starting with a control character."""
    lines = []
    for line in esc_inline(text).split("\n"):
        for part in textwrap.wrap(line.strip(), width=78, break_long_words=False,
                                  break_on_hyphens=False) or [""]:
            lines.append("\\&" + part if part.startswith(".") else part)
    return "\n".join(lines)


def quoted(text):
    """A macro argument: escaped, in double quotes (a quote inside doubled)."""
    return '"' + esc_inline(text).replace('"', '""') + '"'


def paragraphs(text):
    """Text as --help prints it: blank lines part paragraphs, single line
    breaks stay line breaks."""
    out = []
    for para in text.strip().split("\n\n"):
        if not para.strip():
            continue
        out.append(".PP")
        out.append("\n.br\n".join(esc(line) for line in para.strip().split("\n")))
    return out


def name_string(name):
    return ("--" if name["kind"] == "long" else "-") + name["name"]


def visible(items):
    return [i for i in items or [] if i.get("shouldDisplay", True)]


def visible_subcommands(cmd):
    """The subcommands --help lists: not hidden ones, nor the `help`
    command the argument parser adds (the dump has it, --help does not)."""
    return [s for s in visible(cmd.get("subcommands")) if s["commandName"] != "help"]


def is_builtin(arg):
    pref = arg.get("preferredName")
    return arg["kind"] == "flag" and pref is not None and pref["kind"] == "long" and pref["name"] in BUILTIN


def label(arg):
    """The left column of --help: "-h, --help", "--to <to>", "<text>"."""
    if arg["kind"] == "positional":
        return "<%s>" % arg["valueName"]
    names = arg.get("names") or []
    names = [n for n in names if n["kind"] == "short"] + [n for n in names if n["kind"] != "short"]
    text = ", ".join(name_string(n) for n in names)
    if arg["kind"] == "option":
        text += " <%s>" % arg["valueName"]
    return text


def label_roff(arg):
    """The label with option names bold and value names italic."""
    if arg["kind"] == "positional":
        return "\\fI%s\\fR" % esc_inline(label(arg))
    names = arg.get("names") or []
    names = [n for n in names if n["kind"] == "short"] + [n for n in names if n["kind"] != "short"]
    text = ", ".join("\\fB%s\\fR" % esc_inline(name_string(n)) for n in names)
    if arg["kind"] == "option":
        text += " \\fI%s\\fR" % esc_inline("<%s>" % arg["valueName"])
    return text


def description(arg):
    """The right column of --help: the abstract, then "(values: …)" and
    "(default: …)" as HelpGenerator appends them."""
    values = [v for v in arg.get("allValues") or [] if v]
    default = arg.get("defaultValue") or ""
    notes = ""
    if values and default:
        notes = "(values: %s; default: %s)" % (", ".join(values), default)
    elif values:
        notes = "(values: %s)" % ", ".join(values)
    elif default:
        notes = "(default: %s)" % default
    return " ".join(t for t in (arg.get("abstract") or "", notes) if t)


def synopsis(arg):
    """One argument in a usage line (UsageGenerator.synopsis)."""
    if arg["kind"] == "positional":
        text = "<%s>" % arg["valueName"]
    else:
        text = name_string(arg["preferredName"])
        if arg["kind"] == "option":
            text += " <%s>" % arg["valueName"]
    if arg.get("isRepeating"):
        text += " ..."
    if arg.get("isOptional"):
        text = "[%s]" % text
    if arg.get("parsingStrategy") == "postTerminator":
        text = "-- " + text
    return text


def usage(cmd, path):
    """The USAGE line of --help: every argument, or with more than 12 only
    the required ones and positionals after "[<options>]"; "<subcommand>"
    when there are subcommands."""
    args = [a for a in visible(cmd.get("arguments")) if not is_builtin(a)]
    name = " ".join(path)
    if len(args) == 0:
        line = name
    elif len(args) > 12:
        kept = [a for a in args if a["kind"] == "positional" or not a.get("isOptional")]
        if kept and len(kept) <= 12:
            line = "%s [<options>] %s" % (name, " ".join(synopsis(a) for a in kept))
        else:
            line = "%s <options>" % name
    else:
        line = "%s %s" % (name, " ".join(synopsis(a) for a in args))
    if [s for s in cmd.get("subcommands") or [] if s["commandName"] != "help"]:
        line = line.rstrip() + " <subcommand>"
    return line


def usage_roff(cmd, path):
    name = " ".join(path)
    rest = usage(cmd, path)[len(name):].strip()
    return ("\\fB%s\\fR %s" % (esc_inline(name), esc(rest))).rstrip()


def item_list(items):
    """A .TP list of (roff label, text) pairs."""
    out = []
    for lab, text in items:
        out.append(".TP")
        out.append(lab)
        body = paragraphs(text) if text else []
        # The first paragraph goes right after the label; later ones get .IP.
        for i, line in enumerate(body):
            if line == ".PP":
                if i > 0:
                    out.append(".IP")
                continue
            out.append(line)
    return out


def argument_sections(cmd, heading):
    """ARGUMENTS, the titled groups, OPTIONS, in --help's order; heading()
    writes a header (.SH for the command itself, a bold line in a
    subsection)."""
    args = visible(cmd.get("arguments"))
    positional = [a for a in args if a["kind"] == "positional" and not a.get("sectionTitle")]
    titled = {}
    for a in args:
        if a.get("sectionTitle"):
            titled.setdefault(a["sectionTitle"], []).append(a)
    options = [a for a in args if a["kind"] != "positional" and not a.get("sectionTitle")]
    out = []
    for title, group in [("Arguments", positional)] + list(titled.items()) + [("Options", options)]:
        if group:
            out += heading(title)
            out += item_list((label_roff(a), description(a)) for a in group)
    return out


def subcommand_list(cmd):
    items = []
    for sub in visible_subcommands(cmd):
        lab = "\\fB%s\\fR" % esc_inline(", ".join([sub["commandName"]] + (sub.get("aliases") or [])))
        if sub["commandName"] == cmd.get("defaultSubcommand"):
            lab += " (default)"
        items.append((lab, sub.get("abstract") or ""))
    return item_list(items)


def command_subsections(cmd, path):
    out = []
    for sub in visible_subcommands(cmd):
        sub_path = path + [sub["commandName"]]
        out.append(".SS " + quoted(" ".join(sub_path)))
        out.append(usage_roff(sub, sub_path))
        for text in (sub.get("abstract"), sub.get("discussion")):
            if text:
                out += paragraphs(text)
        out += argument_sections(sub, lambda title: [".PP", "\\fB%s:\\fR" % esc(title)])
        if visible_subcommands(sub):
            out += [".PP", "\\fBSubcommands:\\fR"] + subcommand_list(sub)
        out += command_subsections(sub, sub_path)
    return out


def page_date():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).strftime("%Y-%m-%d")
    try:
        day = subprocess.run(["git", "log", "-1", "--format=%cs"], capture_output=True, text=True,
                             cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
        if day:
            return day
    except OSError:
        pass
    return datetime.date.today().isoformat()


def page(info, section, version, files, see_also, date):
    cmd = info["command"]
    name = cmd["commandName"]
    number = version.split()[0] if version else ""
    out = [
        '.\\" Generated by Tools/manpage.py from `%s --experimental-dump-help`; do not edit.' % name,
        ".TH %s %s %s %s %s" % (quoted(name.upper()), section, '"%s"' % date,
                                quoted(("%s %s" % (name, number)).strip()),
                                quoted("Tongban Terminal")),
        # No hyphenation and a ragged right edge: option names and values
        # stay whole, with single spaces between words, as in --help.
        ".nh",
        ".ad l",
        ".SH NAME",
        "\n".join(textwrap.wrap("%s \\- %s" % (esc_inline(name), esc_inline(cmd.get("abstract") or "")),
                                width=78, break_long_words=False, break_on_hyphens=False)),
        ".SH SYNOPSIS",
        usage_roff(cmd, [name]),
    ]
    out.append(".SH DESCRIPTION")
    for text in (cmd.get("abstract"), cmd.get("discussion")):
        if text:
            out += paragraphs(text)
    out += argument_sections(cmd, lambda title: [".SH " + quoted(title.upper())])
    if visible_subcommands(cmd):
        out += [".SH COMMANDS"] + subcommand_list(cmd)
        out += command_subsections(cmd, [name])
    if files:
        out.append(".SH FILES")
        out += item_list(("\\fI%s\\fR" % esc_inline(path), text) for path, text in files)
    if see_also:
        out.append(".SH SEE ALSO")
        refs = []
        for ref in see_also:
            page_name, _, sec = ref.partition(":")
            refs.append(".BR %s (%s)" % (esc_inline(page_name), esc_inline(sec)))
        out.append(",\n".join(refs))
    if version:
        out += [".SH VERSION", "This page describes %s %s." % (esc(name), esc(version))]
    # A paragraph right after a heading is the heading's own (mandoc warns).
    out = [line for i, line in enumerate(out)
           if not (line == ".PP" and i > 0 and out[i - 1].startswith((".SH", ".SS")))]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the command whose page this is (run with --experimental-dump-help and --version)")
    ap.add_argument("--section", required=True, help="1 for a user command, 8 for a daemon")
    ap.add_argument("--json", help="read the dump from this file instead of running the binary")
    ap.add_argument("--file", action="append", default=[], metavar="PATH=TEXT", help="a FILES entry; repeat")
    ap.add_argument("--see-also", action="append", default=[], metavar="NAME:SECTION", help="a SEE ALSO entry; repeat")
    args = ap.parse_args()

    if args.json:
        with open(args.json, encoding="utf-8") as f:
            dump = f.read()
    else:
        dump = subprocess.run([args.binary, "--experimental-dump-help"], check=True,
                              capture_output=True, text=True).stdout
    version = subprocess.run([args.binary, "--version"], check=True,
                             capture_output=True, text=True).stdout.strip()
    files = [tuple(f.split("=", 1)) for f in args.file]
    sys.stdout.write(page(json.loads(dump), args.section, version, files, args.see_also, page_date()))


if __name__ == "__main__":
    main()
