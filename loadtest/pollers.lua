-- wrk script: phones polling the public live fragments at a fixed interval (loadtest/pollers.py).
-- One wrk connection is one phone: it waits a random part of the interval first (phones are not in step),
-- then polls every interval after each answer, as htmx's `every 3s` does. Each poll picks an event in
-- proportion to its players (one event in the one-event test; the four live events in the festival mode),
-- then asks for its whole-event standings (share) or a random player's page of it, with HX-Request and gzip
-- like a browser, and without If-None-Match: during a round every confirmation changes every public ETag,
-- so a phone's ETag is nearly always old and its answer a whole fragment; this is the heavier case for the
-- server.
-- Arguments after `--`: events (`base|n,n,…` per event, `;` between them), interval ms, standings share,
-- connections per thread.

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

local events, total, interval, share, phones
local sent = 0

function init(args)
  events, total = {}, 0
  for spec in string.gmatch(args[1], "[^;]+") do
    local base, list = string.match(spec, "^([^|]+)|(.*)$")
    local players = {}
    for number in string.gmatch(list, "%d+") do players[#players + 1] = number end
    total = total + #players
    events[#events + 1] = {base = base, players = players, upto = total}
  end
  interval, share, phones = tonumber(args[2]), tonumber(args[3]), tonumber(args[4])
  math.randomseed(os.time() * 100 + (seed or 0))
end

function delay()
  sent = sent + 1
  if sent <= phones then return math.random(0, interval) end
  return interval
end

function request()
  local pick, event = math.random(total), events[#events]
  for _, candidate in ipairs(events) do
    if pick <= candidate.upto then event = candidate; break end
  end
  local path
  if math.random() < share then
    path = event.base .. "standings/live/"
  else
    path = event.base .. "player/" .. event.players[math.random(#event.players)] .. "/live/"
  end
  return wrk.format("GET", path, {["HX-Request"] = "true", ["Accept-Encoding"] = "gzip"})
end
