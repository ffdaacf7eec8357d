// The room part of an `update` (status, timers, seats, connections; see
// Room.status_dict on the server) in the one shape the pages use.

/**
 * From an update's ``room`` object and the RoomInfo: ``{status, gameNo,
 * gameId, names, bots: {seat: level}, connected, covered, rematch,
 * turn_timer: {seat, ms_left, ms_total} | null, time_left_ms, start_in_ms,
 * resume_in_ms}``.
 * Timer deadlines are on the server's clock; ``now`` is its time of sending.
 */
export function roomState(room, view, info) {
  const src = room || {};
  const timers = src.timers || {};
  const now = typeof src.now === "number" ? src.now : null;
  const left = (deadline) =>
    typeof deadline === "number" && now !== null ? Math.max(0, deadline - now) : null;
  const bots = {};
  for (const [seat, level] of Object.entries(src.bots || {})) bots[Number(seat)] = level;
  if (!room && info && info.seats) {
    for (const s of info.seats) if (s.bot) bots[s.seat] = s.bot;
  }
  const out = {
    status: src.status || (info && info.status) || null,
    gameNo: src.game_no ?? (info ? info.game_no : null) ?? null,
    gameId: src.game_id ?? null,
    names: src.names || (info && info.seats ? info.seats.map((s) => s.name) : []),
    bots,
    connected: src.connected || (info && info.seats ? info.seats.map((s) => s.connected) : null),
    covered: src.covered || [],
    rematch: src.rematch || [],
    spectators: src.spectators ?? (info ? info.spectators : 0),
    turn_timer: null,
    time_left_ms: left(timers.time_limit),
    start_in_ms: left(timers.start),
    resume_in_ms: left(timers.resume),
  };
  const turnLeft = left(timers.turn);
  if (turnLeft !== null && view && view.turn !== null && view.turn !== undefined && !view.over) {
    const total = info && info.turn_seconds ? info.turn_seconds * 1000 : turnLeft;
    out.turn_timer = { seat: view.turn, ms_left: turnLeft, ms_total: Math.max(total, turnLeft) };
  }
  return out;
}
