#!/bin/bash
# The README's "From nothing to a container served by Docker" (steps 1-6, as written there), timed:
# from step 4's `deploy` to DEPLOYED (its state asked every 50 ms) and to the first answer at its
# HTTPS address (its link and the address asked every 50 ms, beside it). docs/performance.md has the
# figures. Usage, from a clone after `npm ci`, with a Docker engine, curl, jq and bc:
#   bash bench/readme-walkthrough.sh [rounds]
# Each round starts Berth on a fresh data dir (/tmp/berth-walkthrough) and ports of its own
# (18080; front door 18880/18443/12019). The image is built `FROM busybox`: where Docker Hub is not
# reachable, import a busybox root file system as `busybox` first.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-1}
for ROUND in $(seq 1 "$ROUNDS"); do
export BERTH_LOG_LEVEL=${BERTH_LOG_LEVEL:-info} BERTH_LOG_FORMAT=json PORT=18080 BERTH_DATA_DIR=/tmp/berth-walkthrough BERTH_EXECUTOR=docker BERTH_DOCKER_PUBLISH_HOST=127.0.0.1
export BERTH_PROXY_HTTP_PORT=18880 BERTH_PROXY_HTTPS_PORT=18443 BERTH_PROXY_ADMIN_PORT=12019 BERTH_PROXY_LISTEN_HOST=127.0.0.1
rm -rf $BERTH_DATA_DIR
node bin/berth.js serve > /tmp/berth-walkthrough.log 2>&1 & BERTH_PID=$!
until curl -sf http://127.0.0.1:$PORT/readyz > /dev/null; do sleep 1; done
TOKEN=$(npx berth token create --org Acme 2> /dev/null)
api() { local path=$1; shift; curl -sS -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' "$@" "http://127.0.0.1:$PORT$path"; }
ORG=$(api /organization | jq -r '.results[0].id')
PROJECT=$(api /organization/$ORG/project -d '{"name":"shop"}' | jq -r .id)
ENV=$(api /project/$PROJECT/environment -d '{"name":"dev"}' | jq -r .id)
printf 'FROM busybox\nRUN mkdir /www && echo hello from Berth > /www/index.html\nCMD ["httpd", "-f", "-p", "8000", "-h", "/www"]\n' | docker build -q -t hello-berth:1 - >/dev/null
REGISTRY=$(api /organization/$ORG/containerRegistry -d '{"name":"hub","kind":"DOCKER_HUB","config":{}}' | jq -r .id)
CONTAINER=$(api /environment/$ENV/container -d '{"name":"hello","registry_id":"'$REGISTRY'","image_name":"hello-berth","tag":"1",
  "ports":[{"internal_port":8000,"publicly_accessible":true,"protocol":"HTTP"}],"healthchecks":{}}' | jq -r .id)
T0=$(date +%s.%N)
api /container/$CONTAINER/deploy -d '{}' > /dev/null
( until URL=$(api /container/$CONTAINER/link | jq -r '[.results[] | select(.url | startswith("https://"))][0].url // empty') && [ -n "$URL" ] && curl -sf --cacert $BERTH_DATA_DIR/front-door/data/pki/authorities/local/root.crt $URL > /dev/null 2>&1; do sleep 0.05; done; echo "round $ROUND: first HTTPS answer $(echo "$(date +%s.%N) - $T0" | bc) s after deploy" ) &
HTTPS_PID=$!
while api /container/$CONTAINER/status | jq -e '.state | test("QUEUED|ING$")' > /dev/null; do sleep 0.05; done
echo "round $ROUND: $(api /container/$CONTAINER/status | jq -r .state) $(echo "$(date +%s.%N) - $T0" | bc) s after deploy"
wait $HTTPS_PID
URL=$(api /container/$CONTAINER/link | jq -r '[.results[] | select(.url | startswith("https://"))][0].url')
curl -s --cacert $BERTH_DATA_DIR/front-door/data/pki/authorities/local/root.crt $URL > /dev/null
api /environment/$ENV -X DELETE > /dev/null
until [ "$(api /environment/$ENV -o /dev/null -w '%{http_code}')" = 404 ]; do sleep 1; done; kill $BERTH_PID; wait $BERTH_PID
done
