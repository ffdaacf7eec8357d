// The games, presets and house-rule options the forms offer: the server's
// GET /api/options, derived from the engine's option table (core.rules.OPTIONS).

let cached = null;

export async function loadOptions() {
  if (cached) return cached;
  const res = await fetch("/api/options");
  cached = await res.json();
  return cached;
}
