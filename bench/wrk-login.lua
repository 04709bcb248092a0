-- wrk (a native load generator) sending valid logins with unique transaction ids, for a cross-check
-- of the p99 that autocannon measures: wrk -t1 -c50 -d10s --latency -s bench/wrk-login.lua URL/callback
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
    .. ',"feedback_data":"bench","user_id":"bench-p' .. (n % 1000) .. '"}'
  return wrk.format(nil, nil, nil, body)
end
