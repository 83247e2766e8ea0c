// Facts from ftdiag run's forecast of the checkpoint save (the `forecast`
// records, docs/memory-model.md "Before the save"): what it predicted while
// the job trained, and how long before the incident it warned. A verdict of
// an OOM kill at a save then says it was foreseen, and when.
#include <fmt/format.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

const char* kForecastFacts[] = {"forecast.save_peak_bytes", "forecast.capacity_bytes", "forecast.fits", "forecast.warned_before_death"};

}  // namespace

void extract_forecast_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  const evidence::RunEvidence* run = focus ? &evidence::run_at(document, *focus) : nullptr;
  if (!run || run->save_forecasts.empty()) {
    const Missing why{MissingReason::not_present,
                      "no forecast of the checkpoint save: the job was not run under ftdiag run, its configs named no ZeRO stage or "
                      "model, or it never trained long enough"};
    for (const char* name : kForecastFacts) facts.set_missing(name, why);
    return;
  }
  // The last forecast made before the incident (a forecast is only made
  // before the first save begins).
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < run->save_forecasts.size(); ++i) {
    if (!incident || !incident->time || run->save_forecasts[i].time <= *incident->time) chosen = i;
  }
  const auto& forecast = run->save_forecasts[chosen];
  const auto at = fmt::format("{}/save_forecasts/{}", focus->pointer(), chosen);
  facts.set("forecast.save_peak_bytes", static_cast<std::int64_t>(forecast.predicted_peak_bytes), at + "/predicted_peak_bytes");
  facts.set("forecast.capacity_bytes", static_cast<std::int64_t>(forecast.capacity_bytes), at + "/capacity_bytes");
  facts.set("forecast.fits", forecast.fits, at + "/fits");
  if (!forecast.fits && incident && incident->time && *incident->time >= forecast.time) {
    facts.set("forecast.warned_before_death", *incident->time - forecast.time, at + "/time");
  } else {
    facts.set_missing("forecast.warned_before_death",
                      {MissingReason::not_present, forecast.fits ? "the forecast said the save fits: no warning was given"
                                                                 : "no incident after the warning to time it against"});
  }
}

}  // namespace ftdiag::facts
