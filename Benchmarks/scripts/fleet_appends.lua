-- wrk script of fleet_appends.sh: live GPS fixes from a fleet of vehicles "veh-0".."veh-(N-1)".
--
--   FLEET_VEHICLES=N FLEET_THREADS=T [FLEET_ENDS=file] [FLEET_BATCH=B] [FLEET_TOKEN=t] \
--     wrk -tT -c64 -d10s --latency -s fleet_appends.lua http://127.0.0.1:PORT
--
-- With FLEET_ORDER=round a thread takes its vehicles in turn instead of at random (below).
-- With FLEET_T0=T (Unix seconds), each fix is a fix object `{"lon":…,"lat":…,"t":…}`, a vehicle's first at T and
-- each next a second later.
--
-- Each request is one fix, `POST /routes/veh-K/points` with `[[lon,lat]]`, for a random vehicle K; with
-- FLEET_BATCH=B > 0, B fixes of random vehicles in one `POST /routes/points` with the body
-- `{"veh-K": [[lon,lat], ...], ...}` (one member per vehicle, its fixes in order). Thread t of T sends the fixes of the vehicles K with K % T == t only, and keeps each
-- one's last position and heading, so every vehicle's track goes on ~30 m per fix from where the generated file
-- (FLEET_ENDS: "lon lat heading" per vehicle, one a line) left it, inside the Paris box of the generator; without
-- FLEET_ENDS a vehicle starts at a random point of the box. done() prints the non-2xx answers counted by
-- response(), summed over the threads (wrk's idiom: setup() keeps each thread, done() reads its globals with get()),
-- and writes where each track ends now to FLEET_ENDS_OUT, in FLEET_ENDS's form, for the next phase.

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  table.insert(threads, thread)
  next_id = next_id + 1
end

local LON_MIN, LON_MAX, LAT_MIN, LAT_MAX = 2.25, 2.45, 48.80, 48.92
local STEP_LAT = 30 / 111320                              -- 30 m in degrees of latitude
local STEP_LON = 30 / (111320 * math.cos(math.rad(48.86))) -- and of longitude, at Paris

local vehicles, thread_count, batch, headers, time0
local clock = {}  -- with FLEET_T0: vehicle → the time of its next fix, Unix seconds
local mine = {}   -- the vehicles of this thread
-- vehicle → its last lon, lat and heading: flat globals, for done() (wrk's thread:get copies no nested table)
lons, lats, headings = {}, {}, {}

function init(args)
  non2xx = 0
  vehicles = tonumber(os.getenv("FLEET_VEHICLES") or "") or 1000
  thread_count = tonumber(os.getenv("FLEET_THREADS") or "") or 1
  batch = tonumber(os.getenv("FLEET_BATCH") or "") or 0
  time0 = tonumber(os.getenv("FLEET_T0") or "")
  math.randomseed(4242 + 7919 * id)
  for k = id, vehicles - 1, thread_count do mine[#mine + 1] = k end
  if #mine == 0 then mine[1] = id % vehicles end
  local ends = os.getenv("FLEET_ENDS")
  local f = ends and ends ~= "" and io.open(ends, "r")
  if f then
    local k = 0
    for line in f:lines() do
      if k % thread_count == id then
        local lon, lat, h = line:match("^(%S+)%s+(%S+)%s+(%S+)")
        lon, lat, h = tonumber(lon), tonumber(lat), tonumber(h)
        if lon and lat and h then lons[k], lats[k], headings[k] = lon, lat, h end
      end
      k = k + 1
    end
    f:close()
  end
  headers = {["Authorization"] = "Bearer " .. (os.getenv("FLEET_TOKEN") or "bench-token-123"),
             ["Content-Type"] = "application/json"}
end

-- The next fix of vehicle k, as "[lon,lat]": ~30 m on from its last one, turning a little, bouncing off the box.
local function fix(k)
  local lon0, lat0 = lons[k], lats[k]
  if lon0 == nil then
    lon0, lat0 = LON_MIN + math.random() * (LON_MAX - LON_MIN), LAT_MIN + math.random() * (LAT_MAX - LAT_MIN)
    headings[k] = math.random() * 2 * math.pi
  end
  local h = headings[k] + (math.random() - 0.5) * 0.6
  local lon, lat = lon0 + math.cos(h) * STEP_LON, lat0 + math.sin(h) * STEP_LAT
  if lon < LON_MIN or lon > LON_MAX then h = math.pi - h; lon = lon0 + math.cos(h) * STEP_LON end
  if lat < LAT_MIN or lat > LAT_MAX then h = -h; lat = lat0 + math.sin(h) * STEP_LAT end
  lons[k], lats[k], headings[k] = lon, lat, h
  if time0 then
    -- A fix object with its time: a second after the vehicle's last.
    local t = clock[k] or time0
    clock[k] = t + 1
    return string.format('{"lon":%.7f,"lat":%.7f,"t":%d}', lon, lat, t)
  end
  return string.format("[%.7f,%.7f]", lon, lat)
end

-- With FLEET_ORDER=round, the thread's vehicles in turn, so that no vehicle's fixes are in two requests in flight
-- (with more vehicles than fixes in flight a thread): a fleet whose devices each send one request at a time.
local order_round = os.getenv("FLEET_ORDER") == "round"
local turn = 0
local function vehicle()
  if order_round then
    turn = turn % #mine + 1
    return mine[turn]
  end
  return mine[math.random(#mine)]
end

function request()
  if batch > 0 then
    -- One member per vehicle (an id given twice is refused), its fixes in the order drawn.
    local order, fixes = {}, {}
    for _ = 1, batch do
      local k = vehicle()
      if fixes[k] == nil then fixes[k] = {}; order[#order + 1] = k end
      local list = fixes[k]
      list[#list + 1] = fix(k)
    end
    local members = {}
    for i, k in ipairs(order) do
      members[i] = string.format('"veh-%d":[%s]', k, table.concat(fixes[k], ","))
    end
    return wrk.format("POST", "/routes/points", headers, "{" .. table.concat(members, ",") .. "}")
  end
  local k = vehicle()
  return wrk.format("POST", "/routes/veh-" .. k .. "/points", headers, "[" .. fix(k) .. "]")
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    if non2xx == 1 then first_error = status .. " " .. string.sub(body or "", 1, 200) end
  end
end

function done(summary, latency, requests)
  local total, first = 0, nil
  for _, thread in ipairs(threads) do
    total = total + (thread:get("non2xx") or 0)
    first = first or thread:get("first_error")
  end
  io.write(string.format("non2xx %d\n", total))
  if first then io.write("first non-2xx answer: " .. first .. "\n") end
  local out = os.getenv("FLEET_ENDS_OUT")
  if out and out ~= "" then
    local all = {}
    for _, thread in ipairs(threads) do
      local lon, lat, h = thread:get("lons") or {}, thread:get("lats") or {}, thread:get("headings") or {}
      for k, v in pairs(lon) do all[k] = {v, lat[k], h[k]} end
    end
    local f = assert(io.open(out, "w"))
    for k = 0, (tonumber(os.getenv("FLEET_VEHICLES") or "") or 0) - 1 do
      local p = all[k]
      f:write(p and string.format("%.7f %.7f %.5f\n", p[1], p[2], p[3]) or "- - -\n")
    end
    f:close()
  end
end
