-- wrk (a native load generator) sending valid logins with unique transaction ids, for a cross-check
-- of the p99 that autocannon measures: wrk -t1 -c50 -d10s --latency -s bench/wrk-login.lua URL/callback
-- One thread (-t1): each wrk thread has its own copy of this script, so two would repeat ids.
-- The players are the bench's own (bench-p0000 … bench-p0999, bench/traffic.ts).
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["api-id"] = "bench"
wrk.headers["api-key"] = "bench-key"
wrk.headers["callback-url"] = "http://bench.test/callback"
local run = tostring(os.time())
local n = 0
request = function()
  n = n + 1
  local body = '{"transaction_id":"wrk-' .. run .. '-' .. n .. '","event_type":"login","timestamp":' .. os.time()
    .. ',"feedback_data":"bench","user_id":"bench-p' .. string.format("%04d", n % 1000) .. '"}'
  return wrk.format(nil, nil, nil, body)
end
