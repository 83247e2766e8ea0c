// The OOM report's task table (dump_tasks, log-formats.md §1.2e). Its columns
// changed six times between 2.6 and 6.8, so the header line names them; the
// name is everything after the last numeric column (it may hold spaces or
// start with digits: "0123456789abcde").
#include "parse/kernel/kernel_oom.h"
#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse::detail {
namespace {

using namespace text;

TaskColumn column_named(std::string_view name) {
  struct Named {
    std::string_view name;
    TaskColumn column;
  };
  static constexpr Named columns[] = {
      {"uid", TaskColumn::uid},
      {"tgid", TaskColumn::tgid},
      {"total_vm", TaskColumn::total_vm},
      {"rss", TaskColumn::rss},
      {"rss_anon", TaskColumn::rss_anon},
      {"rss_file", TaskColumn::rss_file},
      {"rss_shmem", TaskColumn::rss_shmem},
      {"pgtables_bytes", TaskColumn::pgtables_bytes},
      {"swapents", TaskColumn::swapents},
      {"oom_score_adj", TaskColumn::oom_score_adj},
  };
  for (const auto& named : columns) {
    if (named.name == name) return named.column;
  }
  return TaskColumn::other;  // cpu, oom_adj, nr_ptes, nr_pmds
}

std::string_view take_token(std::string_view& s) {
  s = trim_left(s);
  std::size_t end = 0;
  while (end < s.size() && !is_blank(s[end])) ++end;
  std::string_view token = s.substr(0, end);
  s.remove_prefix(end);
  return token;
}

// The layouts of known kernels, by the number of numeric columns.
std::vector<TaskColumn> layout_for(std::size_t count) {
  using C = TaskColumn;
  switch (count) {
    case 10:  // 6.8+
      return {C::uid, C::tgid, C::total_vm, C::rss, C::rss_anon, C::rss_file, C::rss_shmem, C::pgtables_bytes,
              C::swapents, C::oom_score_adj};
    case 8:  // 4.1 - 4.14: nr_ptes nr_pmds
      return {C::uid, C::tgid, C::total_vm, C::rss, C::other, C::other, C::swapents, C::oom_score_adj};
    default: {
      // 7 columns are three layouts (4.15-6.7, 3.4-4.0, <=3.3) that agree on
      // all but the middle two.
      std::vector<C> columns(count, C::other);
      const C leading[] = {C::uid, C::tgid, C::total_vm, C::rss};
      for (std::size_t i = 0; i < count && i < 4; ++i) columns[i] = leading[i];
      if (count > 4) columns.back() = C::oom_score_adj;
      return columns;
    }
  }
}

void store(OomTask& task, TaskColumn column, std::int64_t value) {
  const auto pages = value < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(value));
  const auto small = value < -2'000'000'000 || value > 2'000'000'000 ? std::nullopt
                                                                      : std::optional<int>(static_cast<int>(value));
  switch (column) {
    case TaskColumn::uid: task.uid = small; break;
    case TaskColumn::tgid: task.tgid = small; break;
    case TaskColumn::total_vm: task.total_vm_pages = pages; break;
    case TaskColumn::rss: task.rss_pages = pages; break;
    case TaskColumn::rss_anon: task.rss_anon_pages = pages; break;
    case TaskColumn::rss_file: task.rss_file_pages = pages; break;
    case TaskColumn::rss_shmem: task.rss_shmem_pages = pages; break;
    case TaskColumn::pgtables_bytes: task.pgtables_bytes = pages; break;
    case TaskColumn::swapents: task.swap_entries = pages; break;
    case TaskColumn::oom_score_adj: task.oom_score_adj = small; break;
    case TaskColumn::other: break;
  }
}

std::optional<std::int64_t> numeric(std::string_view token) {
  if (token.empty()) return std::nullopt;
  auto value = take_i64(token);
  return value && token.empty() ? value : std::nullopt;
}

}  // namespace

std::optional<TaskTableLayout> parse_task_table_header(std::string_view message) {
  if (!consume(message, "[")) return std::nullopt;
  const auto close = message.find(']');
  if (close == std::string_view::npos || trim(message.substr(0, close)) != "pid") return std::nullopt;
  message.remove_prefix(close + 1);
  std::vector<std::string_view> names;
  for (auto token = take_token(message); !token.empty(); token = take_token(message)) names.push_back(token);
  if (names.size() < 3 || names.front() != "uid" || names.back() != "name") return std::nullopt;
  TaskTableLayout layout;
  for (std::size_t i = 0; i + 1 < names.size(); ++i) layout.columns.push_back(column_named(names[i]));
  return layout;
}

std::optional<OomTask> parse_task_row(std::string_view message, const TaskTableLayout* layout) {
  if (!consume(message, "[")) return std::nullopt;
  message = trim_left(message);
  OomTask task;
  auto pid = take_int(message);
  if (!pid || !consume(message, "]")) return std::nullopt;
  task.pid = *pid;

  std::vector<std::int64_t> values;
  const std::size_t wanted = layout ? layout->columns.size() : 0;
  while (!layout || values.size() < wanted) {
    std::string_view rest = message;
    auto value = numeric(take_token(rest));
    // Without a layout the last token is the name, even when all digits.
    if (!value || (!layout && trim(rest).empty())) break;
    values.push_back(*value);
    message = rest;
    if (values.size() > 16) return std::nullopt;
  }
  if (layout ? values.size() != wanted : values.size() < 4) return std::nullopt;
  if (!message.empty() && !is_blank(message.front())) return std::nullopt;
  const std::vector<TaskColumn> columns = layout ? layout->columns : layout_for(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) store(task, columns[i], values[i]);
  task.name = std::string(trim_right(trim_left(message)));
  return task;
}

}  // namespace ftdiag::parse::detail
