#include <cstdio>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "report/catalogue_markdown.h"
#include "rules/causes.h"
#include "rules/rule_paths.h"
#include "rules/rule_tests.h"

namespace ftdiag::cli {

namespace {

struct RulesArguments {
  std::vector<std::string> rule_dirs;
  std::string tests_dir;
  std::vector<std::string> lint_files;
};

int list_rules(const RulesArguments& args) {
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  for (const auto& r : rules->rules) {
    std::cout << fmt::format("{:<34} {:<26} {:<11} {}\n", r.id, r.cause,
                             r.role == rules::RuleRole::consequence ? "consequence"
                             : r.role == rules::RuleRole::check     ? "check"
                             : r.role == rules::RuleRole::fallback  ? "fallback"
                                                                    : "primary",
                             r.source);
  }
  return kExitOk;
}

int test_rules(const RulesArguments& args) {
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  const auto dir = args.tests_dir.empty() ? rules::builtin_rules_directory() / "tests" : std::filesystem::path(args.tests_dir);
  const auto results = rules::run_rule_tests(rules.value(), dir);
  int failed = 0;
  for (const auto& r : results) {
    if (r.passed) {
      std::cout << "ok   " << r.name << '\n';
    } else {
      ++failed;
      std::cout << "FAIL " << r.name << ": " << r.detail << '\n';
    }
  }
  // The closing line test runners recognise.
  std::cout << fmt::format("{} passed, {} failed\n", results.size() - failed, failed);
  if (results.empty()) {
    std::fprintf(stderr, "ftdiag rules test: no test cases under %s\n", dir.c_str());
    return kExitChecksFailed;
  }
  return failed ? kExitChecksFailed : kExitOk;
}

int lint_rules(const RulesArguments& args) {
  int bad = 0;
  for (const auto& file : args.lint_files) {
    auto set = rules::load_rules(file);
    // A user's file may refine the built-in rules it is used with.
    static const auto builtin = rules::load_rules(rules::builtin_rules_directory());
    for (auto& error : rules::check_refinements(set.rules, builtin.rules)) set.errors.push_back(std::move(error));
    for (const auto& e : set.errors) std::cout << e.describe() << '\n';
    bad += !set.ok();
    if (set.ok()) std::cout << fmt::format("{}: {} rule(s), ok\n", file, set.rules.size());
  }
  return bad ? kExitChecksFailed : kExitOk;
}

int print_doc(const RulesArguments& args) {
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  std::cout << report::render_causes_markdown(rules->rules);
  return kExitOk;
}

}  // namespace

Action add_rules_command(CLI::App& app) {
  auto args = std::make_shared<RulesArguments>();
  auto chosen = std::make_shared<Action>();
  CLI::App* cmd = app.add_subcommand("rules", "List, test, lint and document the rules");
  cmd->footer("Examples:\n"
              "  ftdiag rules list\n"
              "  ftdiag rules --rules my-rules/ test my-rules/tests\n"
              "  ftdiag rules lint my-rules/*.json\n"
              "docs/rules.md says how to write a rule.");
  cmd->require_subcommand(1);
  cmd->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules; repeatable");

  cmd->add_subcommand("list", "List the loaded rules")->callback([=] { *chosen = [=] { return list_rules(*args); }; });
  auto* test = cmd->add_subcommand("test", "Run the rule test cases (default: the built-in rules/tests)");
  test->add_option("dir", args->tests_dir, "A directory of <rule-id>/<case>/ test cases");
  test->callback([=] { *chosen = [=] { return test_rules(*args); }; });
  auto* lint = cmd->add_subcommand("lint", "Check rule files; print every error with file:line:column");
  lint->add_option("files", args->lint_files, "Rule files or directories")->required();
  lint->callback([=] { *chosen = [=] { return lint_rules(*args); }; });
  cmd->add_subcommand("facts", "Print the fact registry (docs/facts.md)")->callback([=] {
    *chosen = [] {
      std::cout << report::render_facts_markdown();
      return kExitOk;
    };
  });
  cmd->add_subcommand("doc", "Print the cause catalogue built from the rules (docs/causes.md)")->callback([=] {
    *chosen = [=] { return print_doc(*args); };
  });
  return [chosen] { return *chosen ? (*chosen)() : kExitUsage; };
}

Action add_explain_command(CLI::App& app) {
  auto cause = std::make_shared<std::string>();
  auto rule_dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("explain", "What a cause means, how it is recognised, what to do");
  cmd->footer("Example:\n"
              "  ftdiag explain host-oom-checkpoint-save");
  cmd->add_option("cause", *cause, "A cause id (see `ftdiag rules doc`)")->required();
  cmd->add_option("--rules", *rule_dirs, "A directory (or file) of extra rules; repeatable");
  return [=] {
    auto rules = load_rule_set(*rule_dirs);
    if (!rules) return kExitRulesInvalid;
    const auto text = report::render_cause_explanation(*cause, rules->rules);
    if (text.empty()) {
      std::string known;
      for (const auto& c : rules::cause_catalogue()) known += fmt::format(" {}", c.id);
      std::fprintf(stderr, "ftdiag explain: unknown cause \"%s\"; known:%s\n", cause->c_str(), known.c_str());
      return kExitUsage;
    }
    std::cout << text;
    return kExitOk;
  };
}

}  // namespace ftdiag::cli
