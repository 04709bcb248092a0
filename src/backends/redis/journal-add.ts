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
 * about 4 µs of redis-server a callback: docs/scale-out-figures.md). The list can disagree with the
 * stream only when something else changed the stream: an older wallet-sim on the same Redis adding,
 * trimming or clearing without it, or a command by hand. Then:
 * - a new or emptied stream (this entry alone in it) starts the list afresh: what it held is gone,
 *   and a stream made again may give the same ids again;
 * - a list longer than the stream first loses its entries older than the stream's oldest (gone by
 *   other means), so it never outgrows the stream by more than what was deleted from its middle;
 * - a list not as long as the stream, or a listed entry already gone, has the oldest read from the
 *   stream instead, and the list's entries up to it dropped.
 * So the bounds stay exact. The oldest goes first once the entries the list does not name are gone.
 */
export const JOURNAL_ADD = `
-- How stream id a (ms-seq) compares with b: -1, 0 or 1.
local function id_compare(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  if am ~= bm then return am < bm and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end

-- Drops the list's head entries whose ids compare with the stream's id "to" as "below" says
-- (-1: older than it; 0: at most it); answers how many are left.
local function drop_listed(sizes, listed, to, below)
  while listed > 0 do
    local head = redis.call('LINDEX', sizes, 0)
    if id_compare(string.sub(head, 1, string.find(head, ' ', 1, true) - 1), to) > below then break end
    redis.call('LPOP', sizes)
    listed = listed - 1
  end
  return listed
end

local function journal_add(stream, bytes_key, capacity, max, n, fields)
  local sizes = stream .. ':sizes'
  local bytes = redis.call('INCRBY', bytes_key, n)
  local id = redis.call('XADD', stream, '*', unpack(fields))
  local len = redis.call('XLEN', stream)
  if len == 1 then redis.call('DEL', sizes) end
  local listed = redis.call('RPUSH', sizes, id .. ' ' .. n)
  if listed > len then
    listed = drop_listed(sizes, listed, redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1][1], -1)
  end
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
      listed = drop_listed(sizes, listed, oldest[1], 0)
    end
    bytes = redis.call('DECRBY', bytes_key, size)
    len = len - 1
  end
  return bytes
end
`;
