#!/usr/bin/env bash
# The TicketRush walk-through: one booking from sign-up to the door, against a running server.
# Runs top to bottom on a fresh server and stops at the first step that does not answer as shown.
#   TICKETRUSH_URL             the server (default http://127.0.0.1:3000)
#   TICKETRUSH_ADMIN_USER      the admin the server was started with (default admin)
#   TICKETRUSH_ADMIN_PASSWORD  its password (default change-me-please)
# Needs bash, curl and node. `npm test` runs it against a freshly started server.
set -euo pipefail

B="${TICKETRUSH_URL:-http://127.0.0.1:3000}/api/v1"
ADMIN_USER="${TICKETRUSH_ADMIN_USER:-admin}"
ADMIN_PASSWORD="${TICKETRUSH_ADMIN_PASSWORD:-change-me-please}"
RUN="$(date +%s)-$$"            # user names and keys are new on every run
JSON='content-type: application/json'
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# call METHOD PATH STATUS [curl options...]: prints the body, or stops the script when the
# answer's status is not STATUS. The response headers are kept in $TMP/headers.
call() {
  local method=$1 path=$2 expected=$3 status
  shift 3
  : > "$TMP/body"   # a 304 or 202 may have no body: never show the previous one
  status=$(curl -sS -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method" "$B$path" "$@")
  if [ "$status" != "$expected" ]; then
    echo "FAILED: $method $path answered $status, expected $expected: $(cat "$TMP/body")" >&2
    exit 1
  fi
  cat "$TMP/body"; echo
}
# field EXPR: reads JSON on stdin and prints EXPR of it (e.g. .holdId); fails when it is missing
# (no input at all means call already said what failed).
field() {
  node -pe "const t = require('fs').readFileSync(0, 'utf8'); const v = t === '' ? undefined : JSON.parse(t)$1;
    if (v === undefined || v === null) { if (t !== '') console.error('FAILED: no $1 in ' + t); process.exit(1); } v"
}
step() { printf '\n== %s\n' "$*"; }

step "Accounts: register a buyer (201) and log in for a bearer token (12 h by default)"
BUYER="buyer-$RUN"
call POST /auth/register 201 -H "$JSON" -d "{\"username\":\"$BUYER\",\"password\":\"password-1\"}"
TOKEN=$(call POST /auth/login 200 -H "$JSON" -d "{\"username\":\"$BUYER\",\"password\":\"password-1\"}" | field .token)
AUTH="authorization: Bearer $TOKEN"
call GET /me 200 -H "$AUTH"

step "Admin: log in, create a show on sale now, and make a door steward (STAFF)"
ADMIN_TOKEN=$(call POST /auth/login 200 -H "$JSON" -d "{\"username\":\"$ADMIN_USER\",\"password\":\"$ADMIN_PASSWORD\"}" | field .token)
ADMIN="authorization: Bearer $ADMIN_TOKEN"
SALE_OPENED=$(node -pe 'new Date(Date.now() - 60e3).toISOString()')
SALE_ENDS=$(node -pe 'new Date(Date.now() + 20 * 86400e3).toISOString()')
SHOW_STARTS=$(node -pe 'new Date(Date.now() + 21 * 86400e3).toISOString()')
SHOW=$(call POST /admin/shows 201 -H "$ADMIN" -H "$JSON" -d "{
  \"title\": \"Walk-through $RUN\", \"venue\": \"Demo Hall\", \"city\": \"Shanghai\",
  \"startsAt\": \"$SHOW_STARTS\", \"saleStartsAt\": \"$SALE_OPENED\", \"saleEndsAt\": \"$SALE_ENDS\",
  \"seatMap\": {\"sections\": [{\"id\": \"A\", \"name\": \"Stalls\", \"rows\": 10, \"seatsPerRow\": 20, \"priceCents\": 12800}]}
}" | field .showId)
echo "show $SHOW"
STAFF="staff-$RUN"
call POST /auth/register 201 -H "$JSON" -d "{\"username\":\"$STAFF\",\"password\":\"password-2\"}"
call PUT "/admin/users/$STAFF/role" 200 -H "$ADMIN" -H "$JSON" -d '{"role":"STAFF"}'
STAFF_TOKEN=$(call POST /auth/login 200 -H "$JSON" -d "{\"username\":\"$STAFF\",\"password\":\"password-2\"}" | field .token)

step "Catalog: on-sale shows first, then upcoming, with server-computed countdowns"
call GET '/shows?limit=5' 200
call GET "/shows/$SHOW" 200

step "Seat map, from memory: send the ETag back and an unchanged map answers 304 with no body"
call GET "/shows/$SHOW/seats?format=compact" 200
ETAG=$(grep -i '^etag:' "$TMP/headers" | cut -d' ' -f2 | tr -d '\r')
call GET "/shows/$SHOW/seats?format=compact" 304 -H "if-none-match: $ETAG"
echo "304 Not Modified for $ETAG"

step "Hold specific seats (all or nothing), give the hold more time, then let it go"
HOLD=$(call POST "/shows/$SHOW/holds" 201 -H "$AUTH" -H "$JSON" -d '{"seatIds":["A-1-9","A-1-10"],"holdSeconds":300}' | field .holdId)
call POST "/holds/$HOLD/extend" 200 -H "$AUTH" -H "$JSON" -d '{"seconds":120}'
call DELETE "/holds/$HOLD" 200 -H "$AUTH"

step "Hold 2 best-available adjacent seats nearest a seat you name (\"adjacent\": false accepts scattered ones)"
HOLD=$(call POST "/shows/$SHOW/holds" 201 -H "$AUTH" -H "$JSON" -d '{"quantity":2,"near":{"section":"A","row":5,"number":10}}' | field .holdId)
echo "hold $HOLD: $(field .seatIds < "$TMP/body")"

step "Order from the active hold; a retry with the same X-Idempotency-Key gets the same order back"
KEY="checkout-$RUN"
ORDER=$(call POST /orders 201 -H "$AUTH" -H "$JSON" -H "x-idempotency-key: $KEY" -d "{\"holdId\":\"$HOLD\"}" | field .orderId)
AGAIN=$(call POST /orders 201 -H "$AUTH" -H "$JSON" -H "x-idempotency-key: $KEY" -d "{\"holdId\":\"$HOLD\"}" | field .orderId)
grep -qi '^idempotent-replayed: true' "$TMP/headers" && [ "$AGAIN" = "$ORDER" ] || { echo "FAILED: the retry was not a replay of $ORDER" >&2; exit 1; }
echo "order $ORDER (the retry was replayed)"

step "Sandbox only: play the card holder; the sandbox calls back, signed, like a real provider"
call POST "/orders/$ORDER/sandbox-pay" 202 -H "$AUTH" -H "$JSON" -d '{"outcome":"SUCCEEDED"}'

step "The order becomes PAID, then TICKETED, with one ticket (and signed QR code) per seat"
STATUS=NONE
for _ in $(seq 1 60); do
  STATUS=$(call GET "/orders/$ORDER" 200 -H "$AUTH" | field .status)
  [ "$STATUS" = TICKETED ] && break
  sleep 0.5
done
[ "$STATUS" = TICKETED ] || { echo "FAILED: order $ORDER is still $STATUS" >&2; exit 1; }
call GET "/orders/$ORDER" 200 -H "$AUTH"
call GET /me/orders 200 -H "$AUTH"
QR=$(call GET /me/tickets 200 -H "$AUTH" | field '.tickets[0].qr')

step "The order's tickets as a PDF, one page a ticket with its QR code, for printing or a phone"
PDF_STATUS=$(curl -sS -o "$TMP/tickets.pdf" -w '%{http_code}' -H "$AUTH" "$B/orders/$ORDER/tickets.pdf")
[ "$PDF_STATUS" = 200 ] || { echo "FAILED: GET /orders/$ORDER/tickets.pdf answered $PDF_STATUS, expected 200" >&2; exit 1; }
echo "tickets.pdf: $(head -c 5 "$TMP/tickets.pdf"), $(wc -c < "$TMP/tickets.pdf" | tr -d ' ') bytes"

step "At the door (STAFF or ADMIN): the first scan admits, the same scan retried is recognised, any other scan is 409"
call POST /checkin 200 -H "authorization: Bearer $STAFF_TOKEN" -H "$JSON" -d "{\"qr\":\"$QR\",\"nonce\":\"gate-3-$RUN\"}"
call POST /checkin 200 -H "authorization: Bearer $STAFF_TOKEN" -H "$JSON" -d "{\"qr\":\"$QR\",\"nonce\":\"gate-3-$RUN\"}"
call POST /checkin 409 -H "authorization: Bearer $STAFF_TOKEN" -H "$JSON" -d "{\"qr\":\"$QR\",\"nonce\":\"gate-4-$RUN\"}"

printf '\nwalk-through complete\n'
