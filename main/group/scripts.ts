// R19.2 / R19.3: the Lua scripts that make every read-modify-write of the shared state one atomic
// step inside Redis, so two instances racing on one key can never both win. `until` is a Lua
// keyword, hence every `e['until']`.

/**
 * The merge (MergeRule in types.ts). KEYS[1] = the kind's hash; ARGV = field, incoming entry
 * (JSON), rule, now (epoch ms), channel, kind. Returns {1, stored} when the entry changed (it
 * was stored and published), {0, stored} when the stored entry stood.
 */
export const MERGE_LUA = `
local field, raw, rule, now, channel, kind = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local function num(v) if v == nil or v == cjson.null then return nil end return v end
local function on(v) return v == true end
local function cleared(e) return e.value == nil or e.value == cjson.null end
local function untilOf(e) return num(e['until']) or math.huge end

-- 1 = the incoming entry wins, 0 = the stored one stands, 2 = the stored incident stands but
-- ends later (anti-herd with a longer wait: the incoming entry with the stored level).
local function decide(old, new)
  local oldAt, newAt = num(old.at) or 0, num(new.at) or 0
  if rule == 'lww' then return newAt >= oldAt and 1 or 0 end
  -- An operator's reset beats everything that happened before it, and only a later reset beats it.
  if on(new.force) and (not on(old.force) or newAt >= oldAt) then return 1 end
  if on(old.force) and oldAt > newAt then return 0 end
  -- Terminal states are never overwritten by a non-terminal write (R4.6, R19.2).
  if on(old.terminal) ~= on(new.terminal) then return on(new.terminal) and 1 or 0 end
  if on(old.terminal) then return newAt >= oldAt and 1 or 0 end
  -- Between clears and ended states the later write wins; a clear also beats a state already over.
  if cleared(old) then return newAt >= oldAt and 1 or 0 end
  local live = untilOf(old) > now
  if cleared(new) then return (newAt >= oldAt or not live) and 1 or 0 end
  if not live then return (newAt >= oldAt or untilOf(new) > now) and 1 or 0 end
  -- Anti-thundering-herd: the stored incident already raised past this write's base.
  local base, level = num(new.base), num(old.level)
  if base ~= nil and level ~= nil and level > base then
    return untilOf(new) > untilOf(old) and 2 or 0
  end
  if untilOf(new) ~= untilOf(old) then return untilOf(new) > untilOf(old) and 1 or 0 end
  return newAt >= oldAt and 1 or 0
end

local stored = redis.call('HGET', KEYS[1], field)
local incoming = cjson.decode(raw)
local verdict = 1
local old = nil
if stored then
  old = cjson.decode(stored)
  verdict = decide(old, incoming)
end
if verdict == 0 then return {0, stored} end
if verdict == 2 then
  incoming.level = old.level
  incoming.base = old.base
  raw = cjson.encode(incoming)
end
redis.call('HSET', KEYS[1], field, raw)
redis.call('PUBLISH', channel, '{"kind":' .. cjson.encode(kind) .. ',"key":' .. cjson.encode(field) .. ',"entry":' .. raw .. '}')
return {1, raw}
`;

/**
 * Drops entries nobody needs any more: a non-terminal state whose end, or a clear whose write,
 * is older than the grace. KEYS[1] = the kind's hash; ARGV = now, grace (ms). Returns the count.
 */
export const PRUNE_LUA = `
local now, grace = tonumber(ARGV[1]), tonumber(ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local removed = 0
for i = 1, #all, 2 do
  local ok, e = pcall(cjson.decode, all[i + 1])
  local stale = not ok
  if ok and e.terminal ~= true then
    local u, at = e['until'], e.at
    if e.value == nil or e.value == cjson.null then
      stale = type(at) == 'number' and at < now - grace
    else
      stale = type(u) == 'number' and u < now - grace
    end
  end
  if stale then
    redis.call('HDEL', KEYS[1], all[i])
    removed = removed + 1
  end
end
return removed
`;

/**
 * The instance heartbeat: KEYS[1] = the sorted set of instances by last beat (Redis's own clock,
 * so the machines' clocks need not agree); ARGV = this instance, ttl ms. Returns the live instances'
 * ids in id order (every instance sees the same order: its place in it is its slot of a shared cap).
 */
export const HEARTBEAT_LUA = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], nowMs, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs - tonumber(ARGV[2]))
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(ids)
return ids
`;

/** A group-wide claim: KEYS[1]; ARGV = owner, ttl ms. 1 = held by owner (taken now or renewed), 0 = someone else's. */
export const CLAIM_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** Compare-and-delete: KEYS[1]; ARGV[1] = owner. Frees the claim only if this owner holds it. */
export const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
