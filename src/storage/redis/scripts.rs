//! The Lua scripts: each decision that reads and writes is one script, so it
//! is atomic on the server. They only count and compare: the rules stay in
//! the Rust core. Inside them hashes are read with HMGET only, so that
//! `INFO commandstats` counts HGET for the state reads of clients alone.

use std::sync::LazyLock;

use redis::Script;

/// Counts one outcome in the generation of the stored state, keeps the
/// tallies that are read, and returns the state, the tallies and the whole
/// window, which Rust sums.
///
/// The window is one hash, a ring of `ring` positions: field `<position>`
/// holds `<bucket>:<generation>:<count of slot 0>:<count of slot 1>:...`. A
/// writer finding an older bucket or generation there starts the position
/// over; the script runs whole, so no reader sees half of it.
/// KEYS: state, window. ARGV: slot, slot count, failure (1/0), count runs
/// (1/0), window TTL ms, state TTL ms, current bucket, ring size (one more
/// than the buckets of the window: a count covers them all), TTL ms of a
/// closed state.
pub static RECORD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local state = redis.call('HMGET', KEYS[1], 's')[1] or '0:0:0'
local phase, generation = string.match(state, '^(%d+):(%d+):')
if not generation then
    -- Not a state of ours (another client wrote it): Rust names and removes it.
    return {state, 0, 0, {}}
end
local slot, slots = tonumber(ARGV[1]), tonumber(ARGV[2])
local now_bucket = tonumber(ARGV[7])
local position = now_bucket % tonumber(ARGV[8])

local stored = redis.call('HMGET', KEYS[2], position)[1]
local counts = {}
local late = false
local fresh = true
-- A value that is not ours (another client wrote it) is written over.
if stored and string.match(stored, '^%d+:%d+:') then
    local parts = {}
    for part in string.gmatch(stored, '[^:]+') do
        parts[#parts + 1] = tonumber(part)
    end
    local bucket, stored_generation = parts[1], parts[2]
    if bucket == now_bucket and stored_generation == tonumber(generation) then
        fresh = false
        -- Breakers with other rules may keep more counters: keep them all.
        for s = 1, math.max(slots, #parts - 2) do
            counts[s] = parts[s + 2] or 0
        end
    else
        -- A later bucket, or a later generation of this one: this writer is late.
        late = bucket > now_bucket or (bucket == now_bucket and stored_generation > tonumber(generation))
    end
end
if not late then
    if fresh then
        for s = 1, slots do
            counts[s] = 0
        end
    end
    counts[slot + 1] = counts[slot + 1] + 1
    redis.call('HSET', KEYS[2], position, string.format('%d:%s:', now_bucket, generation) .. table.concat(counts, ':'))
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])

-- A tally belongs to one generation: another generation's value reads as 0.
local function tally(field, next)
    local value = 0
    local tallied = redis.call('HMGET', KEYS[1], field .. 'g', field)
    if tallied[1] == generation then
        value = tonumber(tallied[2]) or 0
    end
    value = next(value)
    redis.call('HSET', KEYS[1], field .. 'g', generation, field, value)
    return value
end

local outcomes = 0
if phase == '2' then
    outcomes = tally('o', function(value) return value + 1 end)
end
local runs = 0
if ARGV[4] == '1' then
    if ARGV[3] == '1' then
        runs = tally('c', function(value) return value + 1 end)
    else
        runs = tally('c', function() return 0 end)
    end
end
-- Keeps a stored state as long as its circuit is used (no-op without one);
-- a state that is not closed as long as it must outlive its end.
local state_ttl = ARGV[6]
if phase == '0' then
    state_ttl = ARGV[9]
end
-- A forced state keeps the time to live its command gave it: to its end,
-- which may be days away, and a day more.
if not string.match(state, '^%d+:%d+:%d+:%d+:%d+:1$') then
    redis.call('PEXPIRE', KEYS[1], state_ttl)
end
return {state, outcomes, runs, redis.call('HGETALL', KEYS[2])}
"#,
    )
});

/// Stores ARGV[2] as the state if it is still ARGV[1]. ARGV[3]: TTL ms.
pub static COMPARE_AND_SET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if (redis.call('HMGET', KEYS[1], 's')[1] or '0:0:0') ~= ARGV[1] then
    return 0
end
redis.call('HSET', KEYS[1], 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"#,
    )
});

/// Counts one admission in half-open generation ARGV[1]. ARGV[2]: TTL ms.
pub static ADMIT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local value = 0
local stored = redis.call('HMGET', KEYS[1], 'ag', 'a')
if stored[1] == ARGV[1] then
    value = tonumber(stored[2]) or 0
end
value = value + 1
redis.call('HSET', KEYS[1], 'ag', ARGV[1], 'a', value)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return value
"#,
    )
});

/// Removes what another client left at the keys of a service: a key that is
/// not a hash, the state if it still is ARGV[1] (unless empty), window
/// fields still holding their value (ARGV[2], ARGV[3], ...: field, value).
/// Returns what it removed.
pub static REPAIR: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local removed = {}
for _, key in ipairs(KEYS) do
    local kind = redis.call('TYPE', key)['ok']
    if kind ~= 'hash' and kind ~= 'none' then
        local held = 'a ' .. kind
        if kind == 'string' then
            held = "the string '" .. redis.call('GETRANGE', key, 0, 63) .. "'"
        end
        redis.call('DEL', key)
        removed[#removed + 1] = key .. ' held ' .. held .. ', not a hash'
    end
end
if ARGV[1] ~= '' and redis.call('HMGET', KEYS[1], 's')[1] == ARGV[1] then
    redis.call('DEL', KEYS[1])
    removed[#removed + 1] = KEYS[1] .. " held the state '" .. string.sub(ARGV[1], 1, 64) .. "', which does not parse"
end
for i = 2, #ARGV - 1, 2 do
    if redis.call('HMGET', KEYS[2], ARGV[i])[1] == ARGV[i + 1] then
        redis.call('HDEL', KEYS[2], ARGV[i])
        removed[#removed + 1] = KEYS[2] .. " held field '" .. string.sub(ARGV[i], 1, 64) .. "' = '" .. string.sub(ARGV[i + 1], 1, 64) .. "', not a bucket"
    end
end
return removed
"#,
    )
});
