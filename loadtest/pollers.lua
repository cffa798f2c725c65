-- wrk script: phones polling the public live fragments at a fixed interval (loadtest/pollers.py).
-- One wrk connection is one phone: it waits a random part of the interval first (phones are not in step),
-- then polls every interval after each answer, as htmx's `every 3s` does. Each poll asks for the whole-event
-- standings (share) or a random player's page, with HX-Request and gzip like a browser, and without
-- If-None-Match: during a round every confirmation changes every public ETag, so a phone's ETag is nearly
-- always old and its answer a whole fragment; this is the heavier case for the server.
-- Arguments after `--`: base path, interval ms, standings share, player numbers (comma list), connections.

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

local base, interval, share, players, phones
local sent = 0

function init(args)
  base, interval, share = args[1], tonumber(args[2]), tonumber(args[3])
  players = {}
  for number in string.gmatch(args[4], "%d+") do players[#players + 1] = number end
  phones = tonumber(args[5])
  math.randomseed(os.time() * 100 + (seed or 0))
end

function delay()
  sent = sent + 1
  if sent <= phones then return math.random(0, interval) end
  return interval
end

function request()
  local path
  if math.random() < share then
    path = base .. "standings/live/"
  else
    path = base .. "player/" .. players[math.random(#players)] .. "/live/"
  end
  return wrk.format("GET", path, {["HX-Request"] = "true", ["Accept-Encoding"] = "gzip"})
end
