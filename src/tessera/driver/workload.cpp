#include "tessera/driver/workload.hpp"

#include "tessera/driver/platform.hpp"

#include <algorithm>

namespace tessera::driver {

VariantTable& VariantTable::add(std::string name, Platform platform, std::string description, Runner run,
                                std::string needs) {
  variants_.push_back({std::move(name), platform, std::move(description), std::move(run), std::move(needs), false,
                       false});
  return *this;
}

VariantTable& VariantTable::add_native(std::string name, Platform platform, std::string description, Runner run,
                                       std::string needs) {
  add(std::move(name), platform, std::move(description), std::move(run), std::move(needs));
  variants_.back().native = true;
  return *this;
}

VariantTable& VariantTable::set_default(Platform platform, std::string name) {
  defaults_.emplace_back(platform, std::move(name));
  return *this;
}

const Variant* VariantTable::find(const std::string& name) const {
  auto it = std::find_if(variants_.begin(), variants_.end(), [&](const Variant& v) { return v.name == name; });
  return it == variants_.end() ? nullptr : &*it;
}

std::string VariantTable::default_variant() const {
  for (Platform p : {Platform::gpu, Platform::cpu, Platform::cpu1}) {
    if (!platform_available(p)) continue;
    for (const auto& [platform, name] : defaults_)
      if (platform == p)
        if (const Variant* v = find(name); v && v->in_build()) return name;
  }
  // No declared default here: the first variant of the best platform present.
  for (Platform p : {Platform::gpu, Platform::cpu, Platform::cpu1})
    if (platform_available(p))
      for (const auto& v : variants_)
        if (v.platform == p && v.in_build()) return v.name;
  return "";
}

const VariantTable& Workload::variants() const {
  if (!table_) {
    table_ = std::make_unique<VariantTable>();
    const_cast<Workload*>(this)->declare_variants(*table_);
  }
  return *table_;
}

void Workload::tune(const Options&, Progress&, std::ostream&) {
  throw UsageError("workload '" + name() + "' has nothing to tune");
}

}  // namespace tessera::driver
