#include "report/ranks_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/units.h"
#include "facts/job_timeline.h"
#include "report/report_markdown.h"

namespace ftdiag::report {

namespace {

// Past this many runs the table shows the first failure, the rows around
// it and every row that is not a plain consequence; the JSON holds them all.
constexpr std::size_t kRowsShown = 24;

std::string at_text(const facts::RankRow& row) {
  if (!row.since_first) return row.at ? "" : "-";
  if (std::fabs(*row.since_first) < 0.05) return "+0.0 s";
  return fmt::format("{:+.1f} s", *row.since_first);
}


}  // namespace

RanksTable ranks_table(const evidence::EvidenceDocument& document, const std::optional<facts::Incident>& incident) {
  RanksTable table;
  const auto timeline = facts::job_timeline(document, incident);
  if (timeline.rows.size() < 2) return table;
  table.heading = fmt::format("{} runs on {} node{}{}", timeline.rows.size(), timeline.nodes, timeline.nodes == 1 ? "" : "s",
                              timeline.first ? "; times from the first failure" : "");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < timeline.rows.size(); ++i) {
    const auto& row = timeline.rows[i];
    std::string end = row.end;
    if (!row.sender.empty()) end += " by " + row.sender;
    table.rows.push_back({row.node, row.rank ? std::to_string(*row.rank) : "-", end, at_text(row),
                          row.peak_rss ? format_bytes(*row.peak_rss) : "-",
                          row.label.empty() ? std::string(facts::to_string(row.role)) : row.label, row.because});
    table.first.push_back(timeline.first && *timeline.first == i);
    rows.push_back({{"node", row.node},
                    {"rank", row.rank ? nlohmann::json(*row.rank) : nlohmann::json(nullptr)},
                    {"directory", row.directory},
                    {"end", row.end},
                    {"sender", row.sender},
                    {"time", row.at ? nlohmann::json(*row.at) : nlohmann::json(nullptr)},
                    {"since_first_s", row.since_first ? nlohmann::json(*row.since_first) : nlohmann::json(nullptr)},
                    {"peak_rss_bytes", row.peak_rss ? nlohmann::json(*row.peak_rss) : nlohmann::json(nullptr)},
                    {"role", std::string(facts::to_string(row.role))},
                    {"label", row.label},
                    {"because", row.because}});
  }
  nlohmann::json clocks = nlohmann::json::array();
  for (const auto& moved : timeline.clocks.moved()) {
    clocks.push_back({{"node", moved.node}, {"offset_s", moved.offset_s}});
    table.notes.push_back(fmt::format("{}'s clock is {:.1f} s {} {}'s: its times were moved by {:+.1f} s ({})", moved.node,
                                      std::fabs(moved.offset_s), moved.offset_s < 0 ? "ahead of" : "behind",
                                      timeline.clocks.reference(), moved.offset_s, timeline.clocks.basis()));
  }
  for (const auto& node : timeline.silent_nodes) {
    table.notes.push_back(fmt::format("{} fell silent: its journals stop with no end and no death (the node vanished, or "
                                      "its ftdiag was killed with it)", node));
  }
  if (!timeline.unrecorded_nodes.empty()) {
    std::string names;
    for (const auto& n : timeline.unrecorded_nodes) names += (names.empty() ? "" : ", ") + n;
    table.notes.push_back(fmt::format("never recorded: {} (in the job's node list, with no run folder: ftdiag did not run "
                                      "there, or its folder is not in this directory)", names));
  } else if (timeline.expected_nodes && *timeline.expected_nodes > static_cast<std::int64_t>(timeline.nodes)) {
    table.notes.push_back(fmt::format("{} of the job's {} nodes left no run folder", *timeline.expected_nodes - static_cast<std::int64_t>(timeline.nodes),
                                      *timeline.expected_nodes));
  }
  table.json = {{"runs", std::move(rows)},
                {"nodes", timeline.nodes},
                {"first", timeline.first ? nlohmann::json(*timeline.first) : nlohmann::json(nullptr)},
                {"clocks", {{"basis", timeline.clocks.basis()}, {"reference", timeline.clocks.reference()}, {"moved", std::move(clocks)}}},
                {"silent_nodes", timeline.silent_nodes},
                {"unrecorded_nodes", timeline.unrecorded_nodes}};
  return table;
}

namespace {

// Which rows a terminal shows: all up to kRowsShown; past it, every row but
// plain consequences, and the count of those left out.
std::vector<std::size_t> shown_rows(const RanksTable& table, std::size_t& left_out) {
  std::vector<std::size_t> shown;
  left_out = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const bool plain = table.rows[i][5] == "torn down" || table.rows[i][5] == "failed after";
    if (table.rows.size() <= kRowsShown || !plain || table.first[i] || shown.size() < 8) {
      shown.push_back(i);
    } else {
      ++left_out;
    }
  }
  return shown;
}

}  // namespace

std::string render_ranks_text(const RanksTable& table, const TextStyle& style) {
  if (table.rows.empty()) return {};
  std::size_t left_out = 0;
  const auto shown = shown_rows(table, left_out);
  // Columns sized to their contents, the role last and wrapped.
  // The role's reasons are the JSON's and the Markdown's; a terminal row
  // holds the role in two words, and the first failure stands out.
  std::array<std::size_t, 6> width{};
  for (std::size_t c = 0; c < 6; ++c) width[c] = std::string_view(RanksTable::kColumns[c]).size();
  for (auto i : shown) {
    for (std::size_t c = 0; c < 6; ++c) width[c] = std::max(width[c], table.rows[i][c].size());
  }
  auto line_of = [&](const auto& cells) {
    std::string line = "  ";
    for (std::size_t c = 0; c < 6; ++c) line += fmt::format("  {:<{}}", cells[c], c == 5 ? 0 : width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out = toned(style, Tone::strong, fmt::format("  ranks ({})", table.heading)) + "\n";
  std::array<std::string, 6> header;
  for (std::size_t c = 0; c < 6; ++c) header[c] = RanksTable::kColumns[c];
  out += toned(style, Tone::quiet, line_of(header));
  for (auto i : shown) out += table.first[i] ? toned(style, Tone::bad, line_of(table.rows[i])) : line_of(table.rows[i]);
  if (left_out > 0) out += toned(style, Tone::quiet, fmt::format("    ... and {} more consequences (--format json: every run)\n", left_out));
  for (const auto& note : table.notes) out += wrap(note, style.width, "  ", "    ");
  return out;
}

std::string render_ranks_markdown(const RanksTable& table) {
  if (table.rows.empty()) return {};
  std::string out = fmt::format("#### Ranks ({})\n\n| node | rank | end | at | peak RSS | role | why |\n| --- | --- | --- | --- | --- | --- | --- |\n",
                                markdown_text(table.heading));
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& r = table.rows[i];
    const char* mark = table.first[i] ? "**" : "";
    out += fmt::format("| {0}{1}{0} | {2} | {3} | {4} | {5} | {0}{6}{0} | {7} |\n", mark, markdown_cell(r[0]), markdown_cell(r[1]),
                       markdown_cell(r[2]), markdown_cell(r[3]), markdown_cell(r[4]), markdown_cell(r[5]), markdown_cell(r[6]));
  }
  out += '\n';
  for (const auto& note : table.notes) out += "- " + markdown_text(note) + "\n";
  if (!table.notes.empty()) out += '\n';
  return out;
}

std::string render_ranks_html(const RanksTable& table) {
  if (table.rows.empty()) return {};
  std::string out = fmt::format("<h2>Ranks</h2>\n<p>{}</p>\n<table><tr>", html_escape(table.heading));
  for (const char* column : RanksTable::kColumns) out += fmt::format("<th>{}</th>", column);
  out += "</tr>\n";
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    out += table.first[i] ? "<tr class=\"first\">" : "<tr>";
    for (const auto& cell : table.rows[i]) out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (!table.notes.empty()) {
    out += "<ul>\n";
    for (const auto& note : table.notes) out += "<li>" + html_escape(note) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

}  // namespace ftdiag::report
