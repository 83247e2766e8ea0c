#include "collect/python_env/python_sys_path.h"

#include "base/text.h"
#include "collect/helpers/helper_program.h"

namespace ftdiag::collect {
namespace {

// Run with -S, then site's path-building steps by hand (what site.main()
// does, less sitecustomize and usercustomize): the path is the job's, .pth
// files included, but none of the user's start-up code runs in ftdiag's
// helper (a sitecustomize may import torch, or write files the job owns).
//
// Python 3 (any version): paths that are not valid UTF-8 (surrogate-escaped
// bytes) would make json.dumps write lone surrogates, which no JSON reader
// accepts; they are turned into U+FFFD instead. A leading newline puts the
// report on a line of its own whatever a site hook printed without one; the
// line starts with parse::kInterpreterReportMarker.
constexpr const char* kScript =
    "import json, os, sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "try:\n"
    "    import site\n"
    "    known = site.removeduppaths()\n"
    "    known = site.venv(known)\n"
    "    if site.ENABLE_USER_SITE is None:\n"
    "        site.ENABLE_USER_SITE = site.check_enableusersite()\n"
    "    known = site.addusersitepackages(known)\n"
    "    site.addsitepackages(known)\n"
    "except Exception:\n"
    "    pass\n"
    "def text(p):\n"
    "    try:\n"
    "        return os.fsencode(p).decode('utf-8', 'replace')\n"
    "    except Exception:\n"
    "        return repr(p)\n"
    "report = {'version': '%d.%d.%d' % tuple(sys.version_info[:3]),\n"
    "          'executable': text(sys.executable or ''), 'prefix': text(sys.prefix),\n"
    "          'path': [text(p) for p in sys.path]}\n"
    "sys.stdout.write('\\nftdiag-python-report ' + json.dumps(report) + '\\n')\n";

constexpr std::size_t kMaxOutput = 1 << 20;
constexpr std::size_t kMaxErrorLine = 300;

std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?!;&|<>()") == std::string::npos) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The last line of stderr: where Python puts the exception that ended it.
std::string last_error_line(const std::string& errors) {
  const auto lines = text::lines(errors);
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    const auto trimmed = text::trim(*line);
    if (!trimmed.empty()) return std::string(trimmed.substr(0, kMaxErrorLine));
  }
  return {};
}

Missing failure(const std::string& interpreter, const HelperResult& result) {
  const std::string what = interpreter + " " + result.describe();
  switch (result.ending) {
    case HelperResult::Ending::timed_out: return Missing{MissingReason::timed_out, what};
    case HelperResult::Ending::could_not_start: {
      const bool denied = result.start_error.find("ermission denied") != std::string::npos;
      const bool absent = result.start_error.find("No such file") != std::string::npos;
      return Missing{denied ? MissingReason::permission_denied
                            : absent ? MissingReason::not_present : MissingReason::failed, what};
    }
    default: break;
  }
  const std::string error = last_error_line(result.errors);
  return Missing{MissingReason::failed, error.empty() ? what : what + ": " + error};
}

}  // namespace

std::vector<std::string> interpreter_report_command(const std::string& interpreter) {
  return {interpreter, "-B", "-S", "-c", kScript};
}

InterpreterQuery ask_interpreter(const std::string& interpreter,
                                 const std::optional<std::vector<std::string>>& environment,
                                 std::chrono::milliseconds deadline) {
  HelperRequest request;
  request.argv = interpreter_report_command(interpreter);
  request.environment = environment;
  request.deadline = deadline;
  request.max_output = kMaxOutput;
  InterpreterQuery query;
  for (const auto& word : request.argv) query.command += (query.command.empty() ? "" : " ") + quoted(word);
  const HelperResult result = run_helper(request);
  if (!result.succeeded()) {
    query.report = failure(interpreter, result);
    return query;
  }
  query.report = parse::parse_interpreter_report(result.output);
  if (!query.report) {
    query.report = Missing{MissingReason::unparseable, interpreter + ": " + query.report.missing().detail};
  }
  return query;
}

}  // namespace ftdiag::collect
