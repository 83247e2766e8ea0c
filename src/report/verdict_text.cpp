#include "report/verdict_text.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "report/checks_text.h"
#include "rules/causes.h"

namespace ftdiag::report {

namespace {

constexpr std::string_view kIndent = "  ";

// The causes an entry of evidence would decide, named up to a few.
std::string causes_text(const std::vector<std::string>& causes) {
  constexpr std::size_t kNamed = 5;
  std::string text;
  for (std::size_t i = 0; i < causes.size() && i < kNamed; ++i) text += (i ? ", " : "") + causes[i];
  if (causes.size() > kNamed) text += fmt::format(" and {} more", causes.size() - kNamed);
  return text;
}

// How much of a compact verdict is shown; the first layout that fits the
// screen wins (render_verdict).
struct Shown {
  std::size_t reasons = 2;
  std::size_t remedies = 2;
  std::size_t needs = 1;        // a likely verdict's needs (an unknown's are all shown)
  bool need_steps = true;       // with how to get each
};

// What would decide an unknown verdict (or make a likely one sure), in words,
// with how to get it.
void append_needed_evidence(std::string& out, const rules::Verdict& v, const TextStyle& style, const Shown& shown_parts = {}) {
  if (v.needed.empty()) return;
  const std::size_t shown = style.verbose || v.cause == rules::kUnknownCause ? v.needed.size() : shown_parts.needs;
  if (shown == 0) return;
  out += toned(style, Tone::strong, v.cause == rules::kUnknownCause ? "  what would decide it:" : "  what would make it sure:") + "\n";
  for (std::size_t i = 0; i < std::min(shown, v.needed.size()); ++i) {
    const auto& need = v.needed[i];
    out += wrap(need.what, style.width, fmt::format("    {}. ", i + 1), "       ");
    if (style.verbose) out += wrap("it would decide between: " + causes_text(need.causes), style.width, "       ", "         ");
    if (!style.verbose && !shown_parts.need_steps) continue;
    for (const auto& step : need.how) out += wrap(step, style.width, "       - ", "         ");
  }
  if (style.verbose) {
    out += wrap("(the facts the rules missed: ftdiag analyze --facts, or verdict.missing_facts in --format json)", style.width, kIndent, kIndent);
  }
}

void append_evidence_sources(std::string& out, const rules::Finding& f, const TextStyle& style) {
  if (f.evidence.empty()) return;
  out += "  evidence:\n";
  for (const auto& c : f.evidence) {
    out += wrap(fmt::format("{} = {}{}", c.fact, c.display, c.pointer.empty() ? "" : "   [" + c.pointer + "]"), style.width, "    ", "      ");
  }
}

void append_reasons(std::string& out, const rules::Finding& f, const TextStyle& style, std::size_t compact_count) {
  const std::size_t shown = style.verbose ? f.supporting.size() : std::min(f.supporting.size(), compact_count);
  for (std::size_t i = 0; i < shown; ++i) out += wrap(f.supporting[i].says, style.width, "  + ", "    ");
  if (!style.verbose) return;
  for (const auto& s : f.contradicting) out += wrap("against: " + s.says, style.width, "  - ", "    ");
}

void append_remediation(std::string& out, const rules::Finding& f, const TextStyle& style, std::size_t compact_count) {
  if (f.remediation.empty()) return;
  out += toned(style, Tone::strong, "  what to do:") + "\n";
  const std::size_t shown = style.verbose ? f.remediation.size() : std::min(f.remediation.size(), compact_count);
  for (std::size_t i = 0; i < shown; ++i) out += wrap(f.remediation[i], style.width, fmt::format("    {}. ", i + 1), "       ");
  if (shown < f.remediation.size()) {
    out += toned(style, Tone::quiet, fmt::format("    ({} more in --verbose)", f.remediation.size() - shown)) + "\n";
  }
}

std::string lower_first(std::string text) {
  // "The job ..." and "A thread ..." read on after "ftdiag verdict: "; "CPU offload ..." keeps its capitals.
  const auto second = text.size() > 1 ? static_cast<unsigned char>(text[1]) : 'x';
  if (!text.empty() && std::isupper(static_cast<unsigned char>(text[0])) && !std::isupper(second) && !std::isdigit(second)) {
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  return text;
}

}  // namespace

std::string confidence_percent(double confidence) { return fmt::format("{:.0f}%", confidence * 100); }

const rules::Finding* verdict_finding(const rules::Judgement& judgement) {
  for (const auto& f : judgement.findings) {
    if (f.rule == judgement.verdict.rule && !f.rule.empty()) return &f;
  }
  return nullptr;
}

std::string verdict_headline(const rules::Verdict& v) {
  if (v.ended_normally) return "The job ended normally";
  const auto* spec = rules::find_cause(v.cause);
  std::string text = spec ? std::string(spec->headline) : v.cause;
  if (v.scope) {
    const auto where = rules::scope_words(*v.scope);
    if (!where.empty() && !(v.cause == "container-oom" && *v.scope == "cgroup")) text += fmt::format(" ({})", where);
  }
  return text;
}

std::string render_verdict(const rules::Judgement& judgement, const TextStyle& style) {
  const auto& v = judgement.verdict;
  std::string out;
  const std::string head = "ftdiag verdict: ";
  if (v.ended_normally) {
    // Nothing failed: no cause to name, and nothing to ask for.
    out += wrap(head + toned(style, Tone::good, lower_first(verdict_headline(v))), style.width, "", kIndent);
    out += wrap(v.summary, style.width, kIndent, kIndent);
    for (const auto& note : v.notes) out += wrap("note: " + note, style.width, kIndent, "    ");
    return out;
  }
  out += wrap(toned(style, Tone::strong, head) + toned(style, Tone::bad, lower_first(verdict_headline(v))), style.width, "", kIndent);
  if (v.cause == rules::kUnknownCause) {
    out += wrap(v.summary, style.width, kIndent, kIndent);
    for (const auto& note : v.notes) out += wrap("note: " + note, style.width, kIndent, "    ");
    append_needed_evidence(out, v, style);
    return out;
  }
  out += toned(style, Tone::quiet, fmt::format("  {}{}, confidence {}", v.cause, v.scope ? fmt::format(", scope {}", *v.scope) : "",
                                               confidence_percent(v.confidence))) +
         "\n";
  out += wrap(v.summary, style.width, kIndent, kIndent);
  const auto* finding = verdict_finding(judgement);
  const auto rest = [&](const Shown& shown) {
    std::string text;
    if (finding) {
      if (style.verbose) append_evidence_sources(text, *finding, style);
      append_reasons(text, *finding, style, shown.reasons);
      append_remediation(text, *finding, style, shown.remedies);
    }
    append_needed_evidence(text, v, style, shown);
    return text;
  };
  if (style.verbose || style.rows == 0) return out + rest({});
  // The first of these layouts that fits the screen: the fix and the
  // verdict's numbers stay; the second reason goes first, then the second
  // fix, then how to get what would make it sure.
  static constexpr std::array<Shown, 7> kLayouts = {{{2, 2, 1, true}, {1, 2, 1, true}, {1, 1, 1, true}, {0, 1, 1, true},
                                                      {0, 1, 1, false}, {0, 1, 0, false}, {0, 0, 0, false}}};
  const auto rows = [](const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); };
  std::string chosen;
  for (const auto& layout : kLayouts) {
    chosen = rest(layout);
    if (rows(out) + rows(chosen) <= style.rows) break;
  }
  return out + chosen;
}

std::string render_verdict_context(const rules::Judgement& judgement, const TextStyle& style) {
  const auto& v = judgement.verdict;
  std::string out;
  if (style.verbose) {
    for (const auto& f : judgement.findings) {
      if (f.rule == v.rule) continue;
      if (f.consequence_of) {
        out += wrap(fmt::format("then: {} (a consequence: {})", f.summary, f.rule), style.width, kIndent, "    ");
      } else if (f.cause != v.cause) {
        // The verdict's own cause, found by a weaker rule too, is not another cause.
        out += wrap(fmt::format("also considered: {} ({}, confidence {}{}): {}", f.cause, f.rule, confidence_percent(f.confidence),
                                f.refined_by ? fmt::format(", refined by {}", *f.refined_by) : "", f.summary),
                    style.width, kIndent, "    ");
      }
    }
  }
  out += render_environment_risks(judgement.checks, style);
  return out;
}

}  // namespace ftdiag::report
