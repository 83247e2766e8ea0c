#!/usr/bin/env bash
# Writes the ftdiag(1) man page on stdout, generated from the program's own
# help texts (`ftdiag --help` and each command's --help), so the page and
# the help never disagree.   scripts/make-man.sh path/to/ftdiag > ftdiag.1
set -euo pipefail
ftdiag=$1

# Text set verbatim in roff: backslashes escaped, a line that starts with a
# dot or a quote kept from being read as a request.
roff_text() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

version=$("$ftdiag" --version | awk '{print $2}')
help=$("$ftdiag" --help)
commands=$(printf '%s\n' "$help" | awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')

cat <<ROFF
.TH FTDIAG 1 "" "ftdiag $version" "User Commands"
.SH NAME
ftdiag \\- why did my fine-tuning job die
.SH SYNOPSIS
.B ftdiag
.I COMMAND
.RI [ OPTIONS ]
.SH DESCRIPTION
ftdiag tells why an LLM fine-tuning job (DeepSpeed, torchrun, accelerate, LLaMA-Factory, axolotl) died:
it supervises a job and records its life and death
.RB ( run ),
does the post-mortem of what a crashed job left
.RB ( analyze ),
and checks the environment before training
.RB ( preflight ).
.PP
.nf
ROFF
printf '%s\n' "$help" | roff_text
echo ".fi"
echo ".SH COMMANDS"
for command in $commands; do
  echo ".SS ftdiag $command"
  echo ".nf"
  "$ftdiag" "$command" --help | roff_text
  echo ".fi"
done
cat <<'ROFF'
.SH EXIT STATUS
0: done (run: the job's own status is mirrored: its exit code, or its signal);
1: preflight found an error, or a rule test failed;
2: bad arguments;
3: the path holds nothing ftdiag can read;
4: permission denied, or input malformed beyond use;
5: the rules failed to load;
70: a bug in ftdiag;
125, 126, 127: run could not supervise, execute or find the command.
.SH ENVIRONMENT
.TP
.B NO_COLOR
no colour in the text reports.
.TP
.B COLUMNS
the width to wrap text to when the output is not a terminal.
.TP
.B FTDIAG_RULES_DIR
the built-in rules' folder.
.SH SEE ALSO
The project's docs/cli.md (every option), docs/causes.md (every cause), docs/rules.md (writing rules).
ROFF
