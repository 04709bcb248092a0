/**
 * The journal's add, in Lua, shared by the journal's own script (src/journal/redis-journal.ts, the
 * rare paths: a delayed or dropped reply, a refused credential) and the callback's one commit script
 * (./commit.ts): adds an entry, then drops the oldest entries until the stream holds at most
 * `capacity` entries and `max` characters of JSON (`n`: this entry's), never the entry just added
 * (a count that drifted above the stream's own is reset to it). An entry written by a wallet-sim
 * from before the byte bound has no n and counts as 0 characters, as it was never added to the
 * byte count.
 *
 * Dropping the oldest entry must know its size. `<stream>:sizes` lists "<id> <n>" of every entry
 * added here, oldest first, so a full journal drops its oldest without reading it (reading it cost
 * about 4 µs of redis-server a callback: docs/scale-out-figures.md). When the list and the stream
 * disagree in length (entries added before the list, by an older wallet-sim, or removed by other
 * means), or the listed entry is gone, the oldest is read from the stream instead, and the list's
 * entries up to it are dropped. An entry listed but missing its turn can only come from such a
 * mix of versions: the bounds stay exact, and the oldest first holds once the older entries are gone.
 */
export const JOURNAL_ADD = `
-- Whether stream id a (ms-seq) is at most b.
local function id_at_most(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if am ~= bm then return tonumber(am) < tonumber(bm) end
  return tonumber(as) <= tonumber(bs)
end

local function journal_add(stream, bytes_key, capacity, max, n, fields)
  local sizes = stream .. ':sizes'
  local bytes = redis.call('INCRBY', bytes_key, n)
  local id = redis.call('XADD', stream, '*', unpack(fields))
  local listed = redis.call('RPUSH', sizes, id .. ' ' .. n)
  local len = redis.call('XLEN', stream)
  while bytes > max or len > capacity do
    if len <= 1 then
      -- Only this entry is left: the count had drifted (a stream trimmed or deleted by other means).
      bytes = n
      redis.call('SET', bytes_key, bytes)
      redis.call('DEL', sizes)
      redis.call('RPUSH', sizes, id .. ' ' .. n)
      break
    end
    local size
    if listed == len then
      local head = redis.call('LPOP', sizes)
      listed = listed - 1
      local at = string.find(head, ' ', 1, true)
      if redis.call('XDEL', stream, string.sub(head, 1, at - 1)) == 1 then size = tonumber(string.sub(head, at + 1)) end
    end
    if not size then
      local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
      size = 0
      for i = 1, #oldest[2], 2 do
        if oldest[2][i] == 'n' then size = tonumber(oldest[2][i + 1]) end
      end
      redis.call('XDEL', stream, oldest[1])
      while listed > 0 do
        local head = redis.call('LINDEX', sizes, 0)
        if not head or not id_at_most(string.sub(head, 1, string.find(head, ' ', 1, true) - 1), oldest[1]) then break end
        redis.call('LPOP', sizes)
        listed = listed - 1
      end
    end
    bytes = redis.call('DECRBY', bytes_key, size)
    len = len - 1
  end
  return bytes
end
`;
