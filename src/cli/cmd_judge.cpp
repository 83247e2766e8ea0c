#include <cstdio>
#include <iostream>
#include <memory>

#include "base/read_file.h"
#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "cli/redaction_option.h"
#include "cli/text_options.h"
#include "evidence/document_json.h"
#include "evidence/json_input.h"
#include "report/report_json.h"
#include "report/verdict_text.h"

namespace ftdiag::cli {

namespace {

struct JudgeArguments {
  std::string file;
  std::string format = "text";
  std::vector<std::string> rule_dirs;
  Redaction redaction = Redaction::on;
  TextOptions text;
};

int judge(const JudgeArguments& args) {
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  // One byte past the limit tells a document over it from one at it.
  auto text = read_small_file(args.file, evidence::kMaxJudgedDocumentBytes + 1);
  if (!text) {
    std::fprintf(stderr, "ftdiag judge: %s\n", text.missing().detail.c_str());
    return text.missing().reason == MissingReason::permission_denied ? kExitInputUnreadable : kExitInputNotFound;
  }
  if (text.value().size() > evidence::kMaxJudgedDocumentBytes) {
    std::fprintf(stderr,
                 "ftdiag judge: %s is larger than %zu MiB: no evidence document or report ftdiag writes is that large\n",
                 args.file.c_str(), evidence::kMaxJudgedDocumentBytes >> 20);
    return kExitInputUnreadable;
  }
  auto parsed = evidence::parse_json_input(text.value(), {.max_values = evidence::kMaxJudgedDocumentValues});
  if (auto* failure = std::get_if<evidence::JsonInputError>(&parsed)) {
    std::fprintf(stderr, "ftdiag judge: %s: %s\n", args.file.c_str(), failure->describe().c_str());
    return kExitInputUnreadable;
  }
  auto j = std::move(std::get<nlohmann::json>(parsed));
  if (!j.is_object()) {
    std::fprintf(stderr, "ftdiag judge: %s is not a JSON object (expected an evidence document or a report)\n", args.file.c_str());
    return kExitInputUnreadable;
  }
  // A saved report carries its evidence; judging it again re-runs the rules.
  auto document = evidence::document_from_json(j.contains("evidence") ? j["evidence"] : j);
  if (!document) {
    std::fprintf(stderr, "ftdiag judge: %s: %s\n", args.file.c_str(), document.missing().detail.c_str());
    return kExitInputUnreadable;
  }
  // Saved evidence may hold secrets (written with --no-redact, or by
  // another tool): judged and printed redacted.
  if (!redact_for_output(document.value(), args.redaction, "judge")) return kExitInternal;
  const auto judgement = judge_document(document.value(), rules.value());
  if (args.format == "json") {
    std::cout << report::report_to_json(document.value(), judgement).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    const auto style = text_style_for(stdout, args.text);
    std::cout << printable(report::render_verdict(judgement, style) + report::render_verdict_context(judgement, style), args.redaction);
  }
  return kExitOk;
}

}  // namespace

Action add_judge_command(CLI::App& app) {
  auto args = std::make_shared<JudgeArguments>();
  CLI::App* cmd = app.add_subcommand("judge", "Run the rules again on saved evidence (an evidence document or a report)");
  cmd->add_option("evidence", args->file, "EVIDENCE.json")->required();
  cmd->footer("Example:\n"
              "  ftdiag analyze job/ --format json > report.json\n"
              "  ftdiag judge report.json --rules my-rules/");
  cmd->add_option("--format", args->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  add_text_options(*cmd, args->text);
  cmd->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules; repeatable");
  add_no_redact_flag(*cmd, args->redaction);
  return [args] { return judge(*args); };
}

}  // namespace ftdiag::cli
