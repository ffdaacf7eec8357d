// The games, presets and house-rule options the create form offers.
// They come from the client's own /static/options.json (kept in step with the
// engine by tests/browser/test_static.py).

let cached = null;

export async function loadOptions() {
  if (cached) return cached;
  const res = await fetch("/static/options.json");
  cached = await res.json();
  return cached;
}
