#include "report/report_data.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <tuple>
#include <utility>

#include "matrix/config_label.h"
#include "report/svg_chart.h"

namespace dtb::core {
namespace {

// Runs `read` over a query's rows; a column the report needs and the query
// lacks (a user's edited copy, say) is named with the query's file.
template <class Read>
void readingQuery(const ReportQueries& queries, const std::string& name, Read&& read) {
  try {
    read();
  } catch (const StoreError& e) {
    throw StoreError("report query '" + name + "' (" + queries.source(name) + "): " + e.what());
  }
}

// Labels: within each (experiment, model), the strategy, then every
// parameter whose value is not the same in all configurations.
void labelConfigs(const QueryResult& rows, ReportData& data) {
  struct Raw {
    ReportConfig config;
    std::string strategy;
    std::map<std::string, std::string> params;
  };
  std::vector<Raw> raws;
  std::map<std::pair<int64_t, std::string>, size_t> index;
  for (size_t i = 0; i < rows.rows.size(); ++i) {
    RowView r(rows, i);
    const int64_t experiment = static_cast<int64_t>(r.numberOr("experiment_id", 0));
    const std::string key = r.text("config_key");
    auto [it, fresh] = index.try_emplace({experiment, key}, raws.size());
    if (fresh) {
      Raw raw;
      raw.config.experiment = experiment;
      raw.config.key = key;
      raw.config.model = r.text("model");
      raw.strategy = r.text("strategy");
      raws.push_back(raw);
    }
    raws[it->second].params[r.text("key")] = r.text("value");
  }
  std::map<std::pair<int64_t, std::string>, std::vector<Raw*>> byModel;
  for (Raw& raw : raws) byModel[{raw.config.experiment, raw.config.model}].push_back(&raw);
  for (auto& [group, members] : byModel) {
    std::vector<LabelInput> inputs;
    for (const Raw* m : members) inputs.push_back({m->strategy, m->config.model, m->params});
    const std::vector<std::string> labels = labelConfigurations(inputs, false);
    for (size_t i = 0; i < members.size(); ++i) members[i]->config.label = labels[i];
    // Settings in numeric order (fusion_threshold_mb=64 before =128), not as text.
    std::stable_sort(members.begin(), members.end(), [](const Raw* a, const Raw* b) {
      return naturalLess(a->config.label, b->config.label);
    });
    for (size_t i = 0; i < members.size(); ++i) {
      data.configIndex[{members[i]->config.experiment, members[i]->config.key}] = data.configs.size();
      data.configs.push_back(members[i]->config);
    }
  }
}

// One colour per label on the whole page, so "topk" is the same colour in
// every chart and legend: labels take the palette's colours in order of
// first appearance (experiment, model, then the labels' order). Past the
// palette's end, a label takes the first colour no label it shares a chart
// with (same experiment and model) has, so no chart shows one colour twice
// while it has fewer configurations than colours.
void colourByLabel(ReportData& data) {
  std::map<std::pair<int64_t, std::string>, std::vector<std::string>> charts;  // (experiment, model)
  std::map<std::string, std::vector<const std::vector<std::string>*>> chartsOf;
  for (const ReportConfig& c : data.configs) charts[{c.experiment, c.model}].push_back(c.label);
  for (const auto& [chart, labels] : charts) {
    for (const std::string& label : labels) chartsOf[label].push_back(&labels);
  }
  std::map<std::string, int> colour;
  for (const ReportConfig& c : data.configs) {
    if (colour.count(c.label)) continue;
    int next = static_cast<int>(colour.size());
    if (next >= kPaletteSize) {
      std::set<int> taken;
      for (const std::vector<std::string>* labels : chartsOf[c.label]) {
        for (const std::string& other : *labels) {
          if (const auto it = colour.find(other); it != colour.end()) taken.insert(it->second);
        }
      }
      next %= kPaletteSize;
      for (int free = 0; free < kPaletteSize; ++free) {
        if (!taken.count(free)) {
          next = free;
          break;
        }
      }
    }
    colour[c.label] = next;
  }
  for (ReportConfig& c : data.configs) c.color = colour[c.label];
}

// Rows in the order of their configurations (as labelConfigs sorted them),
// then by world size: tables and chart series follow the labels' order.
template <typename Row>
void orderByConfig(const ReportData& data, std::vector<Row>& rows) {
  auto position = [&](const Row& r) {
    const auto it = data.configIndex.find({r.experiment, r.key});
    return it == data.configIndex.end() ? data.configs.size() : it->second;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return std::make_tuple(a.experiment, position(a), a.world) <
           std::make_tuple(b.experiment, position(b), b.world);
  });
}

int integer(const RowView& r, const std::string& column) { return static_cast<int>(r.numberOr(column, 0)); }

// "1, 2, 3" for the {experiments} placeholder.
std::string idList(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out.empty() ? "NULL" : out;
}

}  // namespace

const ReportConfig* ReportData::config(int64_t experiment, const std::string& key) const {
  auto it = configIndex.find({experiment, key});
  return it == configIndex.end() ? nullptr : &configs[it->second];
}

std::vector<std::string> ReportData::models(int64_t experiment) const {
  std::vector<std::string> out;
  for (const ReportConfig& c : configs) {
    if (c.experiment == experiment && std::find(out.begin(), out.end(), c.model) == out.end())
      out.push_back(c.model);
  }
  return out;
}

ReportData loadReport(const ReportQueries& queries, const std::vector<int64_t>& experiments) {
  const std::map<std::string, std::string> which = {{"experiments", idList(experiments)}};
  ReportData data;
  const QueryResult exps = queries.run("experiments", which);
  readingQuery(queries, "experiments", [&] {
    for (size_t i = 0; i < exps.rows.size(); ++i) {
      RowView r(exps, i);
      data.experiments.push_back(
          {static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("name"), r.text("description"),
           r.text("created_at"), r.text("host"), r.text("matrix_path"), r.text("dtbench_version"),
           static_cast<int64_t>(r.numberOr("runs", 0)), static_cast<int64_t>(r.numberOr("ok", 0)),
           static_cast<int64_t>(r.numberOr("failed", 0)), static_cast<int64_t>(r.numberOr("sweeps", 0))});
    }
  });
  const QueryResult configs = queries.run("configs", which);
  readingQuery(queries, "configs", [&] { labelConfigs(configs, data); });
  colourByLabel(data);
  auto each = [&](const std::string& name, auto&& add) {
    const QueryResult rows = queries.run(name, which);
    readingQuery(queries, name, [&] {
      for (size_t i = 0; i < rows.rows.size(); ++i) add(RowView(rows, i));
    });
  };
  each("scaling", [&](const RowView& r) {
    data.scaling.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("config_key"),
                            integer(r, "world_size"), integer(r, "repeats"), r.numberOr("samples_per_s", NAN),
                            r.numberOr("min_samples_per_s", NAN), r.numberOr("max_samples_per_s", NAN),
                            r.numberOr("ideal_samples_per_s", NAN), r.numberOr("speedup", NAN),
                            r.numberOr("efficiency", NAN), integer(r, "ref_world_size")});
  });
  each("projection", [&](const RowView& r) {
    data.projections.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)),
                                static_cast<int64_t>(r.numberOr("run_id", 0)), r.text("model"),
                                r.text("system"), r.text("target"), r.text("strategy"), integer(r, "gpus"),
                                integer(r, "ref_gpus"), r.numberOr("samples_per_s", NAN),
                                r.numberOr("efficiency", NAN), r.numberOr("exposed_share", NAN)});
  });
  each("step_breakdown", [&](const RowView& r) {
    data.breakdown.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("config_key"),
                              integer(r, "world_size"), r.numberOr("data_ms", 0), r.numberOr("forward_ms", 0),
                              r.numberOr("backward_ms", 0), r.numberOr("comm_exposed_ms", 0),
                              r.numberOr("optimizer_ms", 0), r.numberOr("other_ms", 0)});
  });
  each("accuracy", [&](const RowView& r) {
    data.accuracy.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("config_key"),
                             integer(r, "world_size"), integer(r, "epoch"), r.numberOr("train_loss", NAN),
                             r.numberOr("test_accuracy", NAN), r.numberOr("min_test_accuracy", NAN),
                             r.numberOr("max_test_accuracy", NAN)});
  });
  each("memory", [&](const RowView& r) {
    data.memory.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("config_key"),
                           integer(r, "world_size"), r.numberOr("param_mb", NAN), r.numberOr("grad_mb", NAN),
                           r.numberOr("optimizer_mb", NAN), r.numberOr("buffer_mb", NAN)});
  });
  each("bandwidth", [&](const RowView& r) {
    data.bandwidth.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("backend"),
                              r.text("op"), r.text("dtype"), integer(r, "ranks"), r.numberOr("bytes", 0),
                              r.numberOr("busbw_gbps", NAN), r.numberOr("time_us", NAN),
                              r.numberOr("p50_us", NAN), r.numberOr("p95_us", NAN),
                              r.numberOr("memcpy_gbps", NAN), static_cast<int64_t>(r.numberOr("wrong", 0))});
  });
  each("key_figures", [&](const RowView& r) {
    KeyFigureRow k{static_cast<int64_t>(r.numberOr("experiment_id", 0)),
                   r.text("config_key"),
                   integer(r, "world_size"),
                   integer(r, "repeats"),
                   integer(r, "failed"),
                   r.numberOr("median_samples_per_s", NAN),
                   r.numberOr("min_samples_per_s", NAN),
                   r.numberOr("max_samples_per_s", NAN),
                   r.numberOr("ms_per_step", NAN),
                   r.numberOr("speedup", NAN),
                   r.numberOr("efficiency", NAN),
                   r.numberOr("mean_test_accuracy", NAN),
                   r.numberOr("min_test_accuracy", NAN),
                   r.numberOr("max_test_accuracy", NAN),
                   r.numberOr("spread", NAN),
                   integer(r, "loaded_runs"),
                   r.numberOr("noisy", 0) != 0};
    // A user's copy of the query from before the column: no bytes, no chart.
    if (r.has("bus_mb_per_step")) k.busMbPerStep = r.numberOr("bus_mb_per_step", NAN);
    data.keyFigures.push_back(std::move(k));
  });
  each("verdict", [&](const RowView& r) {
    VerdictRow v;
    v.experiment = static_cast<int64_t>(r.numberOr("experiment_id", 0));
    v.model = r.text("model");
    v.dataset = r.text("dataset");
    v.bestKey = r.text("best_config_key");
    v.runnerUpKey = r.text("runner_up_config_key");
    v.why = r.text("why");
    v.world = integer(r, "world_size");
    v.configs = integer(r, "configs");
    v.repeats = integer(r, "repeats");
    v.samplesPerS = r.numberOr("samples_per_s", NAN);
    v.margin = r.numberOr("margin", NAN);
    v.marginOverSlowest = r.numberOr("margin_over_slowest", NAN);
    if (const std::optional<double> beyond = r.number("beyond_noise")) v.beyondNoise = *beyond != 0;
    // The decision and the accuracy it was held to: read where the view (or
    // the user's query) has them, else the report names the fastest.
    auto textIf = [&](const char* column) { return r.has(column) ? r.text(column) : std::string(); };
    auto numberIf = [&](const char* column) { return r.has(column) ? r.numberOr(column, NAN) : NAN; };
    v.decision = textIf("decision");
    v.missed = textIf("missed");
    v.accuracyBar = numberIf("accuracy_bar");
    v.targetAccuracy = numberIf("target_accuracy");
    v.bestTestAccuracy = numberIf("best_test_accuracy");
    data.verdicts.push_back(std::move(v));
  });
  each("recovery", [&](const RowView& r) {
    data.recoveries.push_back(
        {static_cast<int64_t>(r.numberOr("experiment_id", 0)), r.text("config_key"), r.text("cause"),
         integer(r, "repeat"), integer(r, "attempt"), static_cast<int64_t>(r.numberOr("resumed_step", 0)),
         static_cast<int64_t>(r.numberOr("lost_steps", 0)), r.numberOr("time_to_detect_s", NAN),
         r.numberOr("time_to_recover_s", NAN), r.text("mode"), integer(r, "world_size_after"),
         r.numberOr("samples_per_s_before", NAN), r.numberOr("samples_per_s_after", NAN)});
  });
  each("timeline", [&](const RowView& r) {
    data.timeline.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)),
                             static_cast<int64_t>(r.numberOr("run_id", 0)), r.text("config_key"),
                             integer(r, "repeat"), r.numberOr("at_s", 0), r.numberOr("samples_per_s", NAN)});
  });
  each("timeline_marks", [&](const RowView& r) {
    data.marks.push_back({static_cast<int64_t>(r.numberOr("experiment_id", 0)),
                          static_cast<int64_t>(r.numberOr("run_id", 0)), r.text("kind"), r.text("detail"),
                          r.numberOr("at_s", 0)});
  });
  orderByConfig(data, data.scaling);
  orderByConfig(data, data.breakdown);
  orderByConfig(data, data.accuracy);
  orderByConfig(data, data.memory);
  orderByConfig(data, data.keyFigures);
  return data;
}

bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {  // numbers as numbers: 64 < 128, 0.25 < 0.5, 5e8 < 1e9
      char* endA = nullptr;
      char* endB = nullptr;
      const double x = std::strtod(a.c_str() + i, &endA), y = std::strtod(b.c_str() + j, &endB);
      if (x != y) return x < y;
      i = static_cast<size_t>(endA - a.c_str());
      j = static_cast<size_t>(endB - b.c_str());
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<ComparisonRow> loadComparison(const ReportQueries& queries, int64_t a, int64_t b,
                                          const ReportData& labels) {
  const QueryResult rows =
      queries.run("compare", {{"experiment_a", std::to_string(a)}, {"experiment_b", std::to_string(b)}});
  std::vector<ComparisonRow> out;
  readingQuery(queries, "compare", [&] {
    for (size_t i = 0; i < rows.rows.size(); ++i) {
      RowView r(rows, i);
      ComparisonRow c;
      c.key = r.text("config_key");
      c.model = r.text("model");
      c.strategy = r.text("strategy");
      c.backend = r.text("backend");
      const ReportConfig* config = labels.config(a, c.key);
      c.label = config ? config->label : c.strategy;
      c.verdict = r.text("verdict");
      c.world = integer(r, "world_size");
      c.repeatsA = integer(r, "repeats_a");
      c.repeatsB = integer(r, "repeats_b");
      if (r.has("loaded_a")) c.loadedA = integer(r, "loaded_a");
      if (r.has("loaded_b")) c.loadedB = integer(r, "loaded_b");
      c.a = r.numberOr("a_samples_per_s", NAN);
      c.b = r.numberOr("b_samples_per_s", NAN);
      c.change = r.numberOr("change", NAN);
      c.noise = r.numberOr("noise", NAN);
      c.accuracyChange = r.numberOr("test_accuracy_change", NAN);
      out.push_back(c);
    }
  });
  return out;
}

}  // namespace dtb::core
