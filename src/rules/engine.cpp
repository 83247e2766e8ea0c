#include "rules/engine.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "facts/registry.h"
#include "rules/causes.h"
#include "rules/explanation.h"

namespace ftdiag::rules {

namespace {

std::vector<CitedFact> cite(const std::set<std::string>& names, const facts::FactSet& facts) {
  std::vector<CitedFact> cited;
  for (const auto& name : names) {
    const auto& entry = facts.get(name);
    if (!entry.value) continue;
    const auto* spec = facts::find_fact(name);
    cited.push_back({name, entry.pointer, entry.value.value(),
                     display_value(entry.value.value(), spec ? spec->unit : facts::Unit::none)});
  }
  return cited;
}

std::vector<WeighedEvidence> weigh(const std::vector<WeightedCondition>& items, const facts::FactSet& facts, double& total) {
  std::vector<WeighedEvidence> held;
  for (const auto& item : items) {
    EvaluationTrace trace;
    if (evaluate(item.condition, facts, &trace) != Truth::yes) continue;
    total += item.weight;
    held.push_back({render_template(item.says, facts), item.weight, cite(trace.used, facts)});
  }
  return held;
}

std::optional<Finding> apply(const Rule& rule, const facts::FactSet& facts, std::set<std::string>& missing,
                             std::vector<UndecidedRule>* undecided) {
  EvaluationTrace trace;
  const Truth fired = evaluate(rule.when, facts, &trace);
  if (fired != Truth::yes) {
    if (fired == Truth::unknown) {
      missing.insert(trace.missing.begin(), trace.missing.end());
      if (undecided) undecided->push_back({rule.id, rule.cause, {trace.missing.begin(), trace.missing.end()}});
    }
    return std::nullopt;
  }
  Finding f;
  f.cause = rule.cause;
  f.rule = rule.id;
  f.title = rule.title;
  f.consequence = rule.role == RuleRole::consequence;
  f.fallback = rule.role == RuleRole::fallback;
  if (rule.role == RuleRole::check) f.severity = rule.severity;
  double support = 0, against = 0;
  f.supporting = weigh(rule.support, facts, support);
  f.contradicting = weigh(rule.against, facts, against);
  f.confidence = std::clamp(rule.confidence + support - against, 0.0, 1.0);
  for (const auto& choice : rule.scope) {
    if (evaluate(choice.condition, facts) == Truth::yes) {
      f.scope = choice.scope;
      break;
    }
  }
  f.summary = render_template(rule.summary, facts);
  f.evidence = cite(trace.used, facts);
  for (std::size_t i = 0; i < rule.remediation.size(); ++i) {
    const auto unless = rule.remediation_unless.find(i);
    if (unless != rule.remediation_unless.end() && evaluate(unless->second, facts) == Truth::yes) continue;
    f.remediation.push_back(render_template(rule.remediation[i], facts));
  }
  f.references = rule.references;
  return f;
}

bool job_succeeded(const facts::FactSet& facts) {
  const auto& failed = facts.get("job.failed").value;
  return failed && std::holds_alternative<bool>(failed.value()) && !std::get<bool>(failed.value());
}

std::int64_t count_fact(const facts::FactSet& facts, const std::string& name) {
  const auto& value = facts.get(name).value;
  return value && std::holds_alternative<std::int64_t>(value.value()) ? std::get<std::int64_t>(value.value()) : 0;
}

// A fallback finding (weak evidence: docs/rules.md) gives way to any primary
// finding that reaches the verdict threshold, whatever the two confidences.
void put_fallbacks_last(std::vector<Finding>& findings) {
  const auto rank = [](const Finding& f) {
    if (f.consequence) return 3;
    if (f.confidence < kVerdictThreshold) return 2;
    return f.fallback ? 1 : 0;
  };
  // Stable: each rank keeps the order by confidence (then id) it was sorted in.
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) { return rank(a) < rank(b); });
}

// A finding that refines the top one (a more specific explanation of the
// same death: "OOM at the cgroup limit" -> "OOM at the cgroup limit while
// loading the model") takes its place when it reaches the verdict threshold,
// whatever the confidences; repeated, so the most specific wins. The loader
// refuses cycles; the bound is only a guard.
void promote_refinements(const std::vector<Rule>& rules, std::vector<Finding>& findings) {
  auto refines = [&](const Finding& specific, const Finding& general) {
    auto rule = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) { return r.id == specific.rule; });
    return rule != rules.end() && std::find(rule->refines.begin(), rule->refines.end(), general.rule) != rule->refines.end();
  };
  for (std::size_t round = 0; round < findings.size() && !findings.empty() && !findings.front().consequence; ++round) {
    auto specific = std::find_if(findings.begin() + 1, findings.end(), [&](const Finding& f) {
      return !f.consequence && f.confidence >= kVerdictThreshold && refines(f, findings.front());
    });
    if (specific == findings.end()) break;
    std::rotate(findings.begin(), specific, specific + 1);
  }
  if (findings.empty() || findings.front().consequence) return;
  for (auto& f : findings) {
    if (&f != &findings.front() && refines(findings.front(), f)) f.refined_by = findings.front().rule;
  }
}

Verdict unknown_verdict(const std::vector<Finding>& findings, const std::set<std::string>& missing,
                        std::vector<UndecidedRule> undecided, const facts::FactSet& facts) {
  Verdict v;
  v.cause = std::string(kUnknownCause);
  v.missing_facts.assign(missing.begin(), missing.end());
  v.undecided = std::move(undecided);
  const Finding* best = nullptr;
  for (const auto& f : findings) {
    if (!f.consequence && (!best || f.confidence > best->confidence)) best = &f;
  }
  if (best) {
    v.confidence = 0;
    v.summary = fmt::format("The evidence does not decide. The closest candidate, {} ({:.0f}% confidence), is too weak: {}",
                            best->cause, best->confidence * 100, best->summary);
  } else if (job_succeeded(facts)) {
    v.undecided.clear();  // nothing to decide: no evidence is wanted
    v.ended_normally = true;
    v.summary = fmt::format("The job ended normally ({}): nothing to diagnose.",
                            render_template("exit code {job.exit_code}", facts));
    if (const auto killed = count_fact(facts, "deaths.by_signal"); killed > 0) {
      v.notes.push_back(fmt::format(
          "{} process(es) inside the job died by a signal ({} by SIGKILL), and the job still succeeded: the job or its "
          "launcher stopped them, or it recovered; they are listed under processes[] with their signals.",
          killed, count_fact(facts, "deaths.by_sigkill")));
    }
  } else if (const auto code = count_fact(facts, "death.exit_code"); code != 0) {
    // No signal: the job (or the process the incident names) exited with an
    // error of its own. Say that, rather than list what a crash would show.
    v.summary = render_template(
        facts.get("death.is_job").value ? "The job exited with code {death.exit_code}" : "{death.command} exited with code {death.exit_code}",
        facts);
    if (facts.get("console.exception").value) v.summary += render_template(" after `{console.exception}`", facts);
    v.summary += ": an error it reported itself, not a kill by a signal";
    const auto& peak = facts.get("cgroup.peak_ratio").value;
    if (peak && std::holds_alternative<double>(peak.value()) && std::get<double>(peak.value()) >= 0.9) {
      v.summary += render_template("; memory did reach {cgroup.peak_ratio} of the cgroup's limit, which may be related.", facts);
    } else {
      v.summary += "; nothing in the record points to memory.";
    }
  } else if (facts.get("death.signal").value) {
    // Say what died and how before what is missing: that is what the user
    // reads first, and the rules' missing facts only say what would decide.
    v.summary = render_template(facts.get("death.command").value ? "{death.command} was killed by {death.signal}"
                                                                : "A process of the job was killed by {death.signal}",
                                facts);
    if (facts.get("death.rank").value) v.summary += render_template(" (rank {death.rank})", facts);
    if (facts.get("console.exception_before_death").value) {
      v.summary += render_template(
          " after the job reported `{console.exception_before_death}`: the first error in time, which the deaths may follow "
          "(a rank's peers abort or are torn down when it fails)",
          facts);
    }
    // What is missing is said in words beside the summary (needed_evidence());
    // the fact names are in --facts and the JSON report.
    v.summary += missing.empty() ? "; no rule decides why." : "; the evidence does not decide why.";
  } else if (!missing.empty()) {
    v.summary = "Nothing found says how the job ended: no death by a signal, exit status or kernel record of one.";
  } else {
    v.summary = "No rule matched: nothing in the record points to a known cause.";
  }
  return v;
}

}  // namespace

Judgement judge(const std::vector<Rule>& rules, const facts::FactSet& facts) {
  Judgement j;
  std::set<std::string> missing;
  std::vector<UndecidedRule> undecided;
  for (const auto& rule : rules) {
    // A check's missing facts say nothing about the death, and a fallback's
    // (a log's words) would decide nothing: kept out of the verdict's.
    std::set<std::string> check_missing;
    const bool own_missing = rule.role == RuleRole::check || rule.role == RuleRole::fallback;
    auto finding = apply(rule, facts, own_missing ? check_missing : missing,
                         rule.role == RuleRole::primary ? &undecided : nullptr);
    if (!finding) continue;
    (rule.role == RuleRole::check ? j.checks : j.findings).push_back(std::move(*finding));
  }
  std::stable_sort(j.checks.begin(), j.checks.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return a.rule < b.rule;
  });
  // Primary findings first, by confidence; ties by rule id for stable output.
  std::stable_sort(j.findings.begin(), j.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.consequence != b.consequence) return !a.consequence;
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return a.rule < b.rule;
  });
  put_fallbacks_last(j.findings);
  promote_refinements(rules, j.findings);
  const Finding* top = j.findings.empty() || j.findings.front().consequence ? nullptr : &j.findings.front();
  if (top && top->confidence >= kVerdictThreshold) {
    j.verdict = Verdict{top->cause, top->confidence, top->scope, top->summary, top->rule, {}};
    // A likely cause, not a sure one: what the undecided rules missed would
    // confirm it or name another.
    if (top->confidence < kSureThreshold) j.verdict.undecided = std::move(undecided);
    for (auto& f : j.findings) {
      if (f.consequence) f.consequence_of = top->rule;
    }
  } else {
    j.verdict = unknown_verdict(j.findings, missing, std::move(undecided), facts);
  }
  return j;
}

std::optional<Severity> worst_severity(const Judgement& judgement) {
  if (judgement.checks.empty()) return std::nullopt;
  return judgement.checks.front().severity;  // sorted most severe first
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

}  // namespace ftdiag::rules
