//! The Lua scripts: each decision that reads and writes is one script, so it
//! is atomic on the server. They only compare: the rules stay in the Rust
//! core, and counting needs no script (plain commands, `mod.rs`). Inside
//! them hashes are read with HMGET only, so that `INFO commandstats` counts
//! HGET for the state reads of clients alone.

use std::sync::LazyLock;

use redis::Script;

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

/// Removes what another client left at the keys of a service: a state key
/// (KEYS[1]) that is not a hash, a state longer than ARGV[3] bytes, the
/// state if it still is ARGV[2] (when ARGV[1] is 1: an empty state too), a
/// counter (KEYS[2], ...) that is not a string holding a number of at most
/// ARGV[4]. A value is read back only when short (a long one by its
/// length: the reply stays small, and says nothing of what it held).
/// Returns what it removed.
pub static REPAIR: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local removed = {}
local function held(key, kind)
    if kind == 'string' then
        local length = redis.call('STRLEN', key)
        if length > 64 then
            return 'a string of ' .. length .. ' bytes'
        end
        return "the string '" .. redis.call('GET', key) .. "'"
    end
    return 'a ' .. kind
end
local function counter(key)
    if redis.call('STRLEN', key) > 16 then
        return false
    end
    local value = redis.call('GET', key)
    return string.match(value, '^%d+$') ~= nil and tonumber(value) <= tonumber(ARGV[4])
end
for i, key in ipairs(KEYS) do
    local kind = redis.call('TYPE', key)['ok']
    if i == 1 and kind ~= 'hash' and kind ~= 'none' then
        removed[#removed + 1] = key .. ' held ' .. held(key, kind) .. ', not a hash'
        redis.call('DEL', key)
    elseif i > 1 and kind ~= 'none' and (kind ~= 'string' or not counter(key)) then
        removed[#removed + 1] = key .. ' held ' .. held(key, kind) .. ', not a counter'
        redis.call('DEL', key)
    end
end
if redis.call('TYPE', KEYS[1])['ok'] == 'hash' then
    local length = redis.call('HSTRLEN', KEYS[1], 's')
    if length > tonumber(ARGV[3]) then
        redis.call('DEL', KEYS[1])
        removed[#removed + 1] = KEYS[1] .. ' held a state of ' .. length .. ' bytes, longer than any'
    elseif ARGV[1] == '1' and redis.call('HMGET', KEYS[1], 's')[1] == ARGV[2] then
        redis.call('DEL', KEYS[1])
        removed[#removed + 1] = KEYS[1] .. " held the state '" .. ARGV[2] .. "', which does not parse"
    end
end
return removed
"#,
    )
});

/// A fleet host's sync (`FleetStorage`): stores the window ARGV[2] of host
/// ARGV[1] in the hash KEYS[1] and the instant (the server's clock, the
/// same for every host) in the index KEYS[2]; removes the hosts not heard
/// of for ARGV[3] ms (their windows are over), at most 1 000 per sync, and
/// the oldest beyond the ARGV[4] most recent; gives both keys the time to
/// live ARGV[3]; removes fields of the hash the index does not know;
/// returns the windows of the ARGV[4] most recent hosts (host,
/// window, ...) and the state of KEYS[3]. A sync thus reads and keeps a
/// bounded number of hosts, however many came and went.
pub static SYNC: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[3])
local kept = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - ttl), 'LIMIT', 0, 1000)
local excess = math.min(redis.call('ZCARD', KEYS[2]) - kept, 1000)
if excess > 0 then
    for _, host in ipairs(redis.call('ZRANGE', KEYS[2], 0, excess - 1)) do
        gone[#gone + 1] = host
    end
end
for first = 1, #gone, 500 do
    local chunk = {unpack(gone, first, math.min(first + 499, #gone))}
    redis.call('HDEL', KEYS[1], unpack(chunk))
    redis.call('ZREM', KEYS[2], unpack(chunk))
end
-- Fields the index does not know (left by an older version, or another
-- client's): at most 2 000 looked at per sync, from the start of the hash.
if redis.call('HLEN', KEYS[1]) > redis.call('ZCARD', KEYS[2]) then
    local cursor, looked = '0', 0
    repeat
        local page = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 500)
        cursor = page[1]
        local unknown = {}
        for i = 1, #page[2], 2 do
            if not redis.call('ZSCORE', KEYS[2], page[2][i]) then
                unknown[#unknown + 1] = page[2][i]
            end
        end
        looked = looked + #page[2] / 2
        if #unknown > 0 then
            redis.call('HDEL', KEYS[1], unpack(unknown))
        end
    until cursor == '0' or looked >= 2000
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
local hosts = redis.call('ZREVRANGE', KEYS[2], 0, kept - 1)
local windows = redis.call('HMGET', KEYS[1], unpack(hosts))
local found = {}
for i, host in ipairs(hosts) do
    if windows[i] then
        found[#found + 1] = host
        found[#found + 1] = windows[i]
    end
end
return {found, redis.call('HMGET', KEYS[3], 's')[1]}
"#,
    )
});
