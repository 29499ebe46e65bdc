//! The Lua scripts: each decision that reads and writes is one script, so it
//! is atomic on the server. They only count and compare: the rules stay in
//! the Rust core. Inside them hashes are read with HMGET only, so that
//! `INFO commandstats` counts HGET for the state reads of clients alone.

use std::sync::LazyLock;

use redis::Script;

/// Counts one outcome in the generation of the stored state, keeps the
/// tallies that are read, and returns the state with the window's counts.
/// KEYS: state, then the window's buckets, oldest first, current last.
/// ARGV: slot, slot count, failure (1/0), count runs (1/0), bucket TTL ms, state TTL ms.
pub static RECORD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local state = redis.call('HMGET', KEYS[1], 's')[1] or '0:0:0'
local phase, generation = string.match(state, '^(%d+):(%d+):')
local slots = tonumber(ARGV[2])
local current = KEYS[#KEYS]
redis.call('HINCRBY', current, generation .. ':' .. ARGV[1], 1)
redis.call('PEXPIRE', current, ARGV[5])

-- A tally belongs to one generation: another generation's value reads as 0.
local function tally(field, next)
    local value = 0
    local stored = redis.call('HMGET', KEYS[1], field .. 'g', field)
    if stored[1] == generation then
        value = tonumber(stored[2]) or 0
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
if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[6])
end

local fields = {}
for slot = 0, slots - 1 do
    fields[#fields + 1] = generation .. ':' .. slot
end
local sums = {}
for slot = 1, slots do
    sums[slot] = 0
end
for index = 2, #KEYS do
    local values = redis.call('HMGET', KEYS[index], unpack(fields))
    for slot = 1, slots do
        sums[slot] = sums[slot] + (tonumber(values[slot]) or 0)
    end
end
local result = {state, outcomes, runs}
for slot = 1, slots do
    result[#result + 1] = sums[slot]
end
return result
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
