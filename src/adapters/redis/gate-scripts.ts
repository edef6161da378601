/**
 * The gate's Lua scripts: each named operation of InventoryGate is ONE script, so Redis runs it
 * atomically (no other command interleaves). Keys of one show share a hash tag ({showId}), so
 * they live on one node of a cluster too. KEYS are always, in this order:
 *   1 built  - the marker: present while the gate holds a complete picture of the show (with a TTL,
 *              so a picture that leaked takes, e.g. of a process killed between the gate and the
 *              database, is rebuilt now and then)
 *   2 taken  - the seat bitmap: bit i = seat i of the layout, 1 = taken (GETBIT / SETBIT / BITCOUNT)
 *   3 ver    - the seats' versions: BITFIELD u32 at #i, the database's version of seat i
 *   4 units  - hash sectionId -> units left of a counted section
 *   5 gen    - counter of unit changes learnt while NOT built (fences a rebuild's unit counts)
 *   6 lease  - who is rebuilding the show now (SET NX PX): one rebuild at a time across processes
 *   7 applied - the last outbox position applied to the show (see GateChanges.position): a change
 *              at or before it was applied already (by another process's relay, or is in a rebuild's
 *              snapshot) and is dropped, so each committed change counts once however many
 *              processes relay it
 * Replies are arrays whose first element says the outcome (-1 not built, 0 refused, 1 done).
 */

/**
 * ARGV: seat indexes. Refuses every known-taken seat (answering index, version pairs, so the
 * caller can tell a gate that has not heard of a newer release yet), or takes them all and
 * answers their versions.
 */
export const takeSeatsLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local refused = {}
for i = 1, #ARGV do
  if redis.call('GETBIT', KEYS[2], ARGV[i]) == 1 then
    refused[#refused + 1] = tonumber(ARGV[i])
    refused[#refused + 1] = redis.call('BITFIELD', KEYS[3], 'GET', 'u32', '#' .. ARGV[i])[1]
  end
end
if #refused > 0 then
  table.insert(refused, 1, 0)
  return refused
end
local out = {1}
for i = 1, #ARGV do
  redis.call('SETBIT', KEYS[2], ARGV[i], 1)
  out[#out + 1] = redis.call('BITFIELD', KEYS[3], 'GET', 'u32', '#' .. ARGV[i])[1]
end
return out
`;

/** ARGV: sectionId, units. A section the gate does not know is "not built": the database decides. */
export const takeUnitsLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local left = redis.call('HGET', KEYS[4], ARGV[1])
if not left then return {-1} end
left = tonumber(left)
local want = tonumber(ARGV[2])
if left < want then return {0, left} end
redis.call('HINCRBY', KEYS[4], ARGV[1], -want)
return {1}
`;

/**
 * ARGV: index, version pairs. Frees a seat only while its version is still the one the take saw:
 * if a newer change arrived meanwhile (the seat really was taken), that change stays.
 */
export const giveBackSeatsLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
for i = 1, #ARGV, 2 do
  local v = redis.call('BITFIELD', KEYS[3], 'GET', 'u32', '#' .. ARGV[i])[1]
  if v == tonumber(ARGV[i + 1]) then redis.call('SETBIT', KEYS[2], ARGV[i], 0) end
end
return {1}
`;

/**
 * ARGV: sectionId, units, leftAtMost (-1: none). Not built: nothing to undo (a take on a gate that
 * was flushed since is gone with it, and a refusal changed nothing in the database).
 */
export const giveBackUnitsLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if not redis.call('HGET', KEYS[4], ARGV[1]) then return {-1} end
local left = redis.call('HINCRBY', KEYS[4], ARGV[1], tonumber(ARGV[2]))
local most = tonumber(ARGV[3])
if most >= 0 and left > most then redis.call('HSET', KEYS[4], ARGV[1], most) end
return {1}
`;

/**
 * Lua: whether outbox position a comes after b. Positions are decimal numbers joined by ':'
 * (SQLite "812", PostgreSQL "<xid>:<id>"), compared number by number; the numbers are compared as
 * digit strings (length, then byte by byte), never as Lua numbers: an xid8 may pass 2^53, where a
 * double loses digits, and string '<' would follow the server's collation locale.
 */
const positionAfterLua = `
local function after(a, b)
  local pa, pb = {}, {}
  for d in string.gmatch(a, '%d+') do pa[#pa + 1] = (string.gsub(d, '^0+', '')) end
  for d in string.gmatch(b, '%d+') do pb[#pb + 1] = (string.gsub(d, '^0+', '')) end
  for k = 1, math.max(#pa, #pb) do
    local x, y = pa[k] or '', pb[k] or ''
    if #x ~= #y then return #x > #y end
    for c = 1, #x do
      local bx, by = string.byte(x, c), string.byte(y, c)
      if bx ~= by then return bx > by end
    end
  end
  return false
end
`;

/**
 * ARGV: position ('' for none), seatCount, then seatCount triples (index, taken 0/1, version), then
 * (sectionId, units) pairs of units given back. A position at or before the show's applied one
 * changes nothing (answer 0): its change was applied already (another relay won the race to
 * deliver it, or a rebuild's snapshot holds it); else it becomes the applied one, in this same
 * script, so two relays delivering one page count each change once. Seats are fenced by version
 * too and written even while not built (a rebuild then keeps whichever is newer). Units given back
 * while not built cannot be added to a count that is not there: they bump gen instead, which breaks
 * the fence of a rebuild whose snapshot may or may not include them, so it reads again.
 */
export const applyChangesLua = `${positionAfterLua}
if ARGV[1] ~= '' then
  local applied = redis.call('GET', KEYS[7])
  if applied and not after(ARGV[1], applied) then return {0} end
  redis.call('SET', KEYS[7], ARGV[1])
end
local n = tonumber(ARGV[2])
for k = 0, n - 1 do
  local i = ARGV[3 + k * 3]
  local v = tonumber(ARGV[5 + k * 3])
  local cur = redis.call('BITFIELD', KEYS[3], 'GET', 'u32', '#' .. i)[1]
  if v > cur then
    redis.call('BITFIELD', KEYS[3], 'SET', 'u32', '#' .. i, v)
    redis.call('SETBIT', KEYS[2], i, tonumber(ARGV[4 + k * 3]))
  end
end
local built = redis.call('EXISTS', KEYS[1]) == 1
for j = 3 + n * 3, #ARGV, 2 do
  if built then
    if redis.call('HGET', KEYS[4], ARGV[j]) then redis.call('HINCRBY', KEYS[4], ARGV[j], tonumber(ARGV[j + 1])) end
  else
    redis.call('INCR', KEYS[5])
  end
end
return {1}
`;

/**
 * ARGV: owner, leaseMs. Built: nothing to do. Else takes the lease, or renews it when it is already
 * this owner's (one process: its GateService runs one rebuild of a show at a time, and a rebuild
 * whose step timed out must not find its own lease busy until it lapses), and answers the fence (gen).
 */
export const beginRebuildLua = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {1} end
local holder = redis.call('GET', KEYS[6])
if holder and holder ~= ARGV[1] then return {0} end
redis.call('SET', KEYS[6], ARGV[1], 'PX', ARGV[2])
return {2, redis.call('GET', KEYS[5]) or '0'}
`;

/**
 * ARGV: gen, owner, leaseMs, builtTtlMs, from, taken ('0'/'1' per seat), finish (0/1), seatCount,
 * appliedThrough ('' for none), then seatCount versions, then (sectionId, left) pairs when
 * finishing. Refused (0) unless gen is unchanged and the lease is still ours; a broken fence
 * drops our lease, so the rebuild's next attempt (or another process's) can begin at once instead
 * of finding the show busy until the lease lapses. Seats: the snapshot's
 * state wins over a version not newer than its own (equal included: a take that leaked is
 * cleared), loses to a newer one. Finishing sets the counts and the marker, moves the applied
 * position up to appliedThrough (those changes are in the snapshot's counts: a relay still behind
 * must not add them again) and drops the lease.
 */
export const rebuildStepLua = `${positionAfterLua}
if redis.call('GET', KEYS[6]) ~= ARGV[2] then return {0} end
if (redis.call('GET', KEYS[5]) or '0') ~= ARGV[1] then
  redis.call('DEL', KEYS[6])
  return {0}
end
redis.call('PEXPIRE', KEYS[6], ARGV[3])
local from = tonumber(ARGV[5])
local taken = ARGV[6]
local n = tonumber(ARGV[8])
for k = 0, n - 1 do
  local i = from + k
  local v = tonumber(ARGV[10 + k])
  local cur = redis.call('BITFIELD', KEYS[3], 'GET', 'u32', '#' .. i)[1]
  if v >= cur then
    if v > cur then redis.call('BITFIELD', KEYS[3], 'SET', 'u32', '#' .. i, v) end
    redis.call('SETBIT', KEYS[2], i, string.byte(taken, k + 1) - 48)
  end
end
if ARGV[7] == '1' then
  redis.call('DEL', KEYS[4])
  for j = 10 + n, #ARGV, 2 do redis.call('HSET', KEYS[4], ARGV[j], ARGV[j + 1]) end
  if ARGV[9] ~= '' then
    local applied = redis.call('GET', KEYS[7])
    if not applied or after(ARGV[9], applied) then redis.call('SET', KEYS[7], ARGV[9]) end
  end
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[4])
  redis.call('DEL', KEYS[6])
end
return {1}
`;
