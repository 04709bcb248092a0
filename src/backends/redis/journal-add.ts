/**
 * The journal's add, in Lua, shared by the journal's own script (src/journal/redis-journal.ts, the
 * rare paths: a delayed or dropped reply, a refused credential) and the callback's one commit script
 * (./commit.ts): adds an entry, then drops the oldest entries until the stream holds at most
 * `capacity` entries and `max` characters of JSON (`n`: this entry's), never the entry just added
 * (a count that drifted above the stream's own is reset to it). An entry written by a wallet-sim
 * from before the byte bound has no n and counts as 0 characters, as it was never added to the
 * byte count.
 */
export const JOURNAL_ADD = `
local function journal_add(stream, bytes_key, capacity, max, n, fields)
  local bytes = redis.call('INCRBY', bytes_key, n)
  redis.call('XADD', stream, '*', unpack(fields))
  while bytes > max or redis.call('XLEN', stream) > capacity do
    if redis.call('XLEN', stream) <= 1 then
      -- Only this entry is left: the count had drifted (a stream trimmed or deleted by other means).
      bytes = n
      redis.call('SET', bytes_key, bytes)
      break
    end
    local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
    local size = 0
    for i = 1, #oldest[2], 2 do
      if oldest[2][i] == 'n' then size = tonumber(oldest[2][i + 1]) end
    end
    redis.call('XDEL', stream, oldest[1])
    bytes = redis.call('DECRBY', bytes_key, size)
  end
  return bytes
end
`;
