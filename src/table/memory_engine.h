// The memory engine: the Engine semantics of the embedded engines over
// ordered in-memory maps behind one mutex. Nothing outlives the engine; for
// tests and for tools that need a scratch table.
// Thread-safe.
#pragma once

#include <memory>

#include "table/engine.h"

namespace stowage::table {

std::unique_ptr<Engine> make_memory_engine();

}  // namespace stowage::table
