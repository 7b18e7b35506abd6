#!/bin/sh
# t2gen's supervisor of one Twister2 job (docs/lifecycle.md). POSIX sh, kubectl and jq only.
#
# Runs in the pod of the batch/v1 Job <job>-supervisor. It waits for the job master,
# follows the job's ConfigMap to its DELETED watch event (the Twister2 job master deletes
# it when the job ends: K8S/master/JobTerminator.java:67-68, where K8S/ is
# twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/ of
# DSC-SPIDAL/twister2), tells from its last state and the job master's log how the job
# ended, keeps the tail of the job master's and restarted workers' logs in its own log,
# kills the job as `twister2 kill` does (KILL_JOB in the ConfigMap,
# K8S/KubernetesLauncher.java:641, K8S/master/JobKillWatcher.java:62-99) at its deadline or
# retry limit, deletes what the job master leaves, and exits 0 (Completed) or 1 (every
# other end) with "<Reason>: <message>" in its termination message.
#
# Settings (environment; the Job sets them): T2_JOB, T2_NAMESPACE, T2_PACKAGE_NAMESPACE,
# T2_RUN (this Job's UID), T2_JOB_MASTER_POD, T2_JOB_MASTER_CONTAINER, T2_WORKER_SELECTOR, T2_CLEANUP
# (TYPE/NAME of what the job master leaves), T2_JOB_OBJECTS (TYPE/NAME of what the job
# master deletes, deleted here only when it did not), T2_DEADLINE, T2_BACKOFF_LIMIT,
# T2_MAX_RESTARTS, T2_TAIL, T2_KILL_GRACE, T2_POLL, T2_TERMINATION_LOG, T2_WORK_DIR.

set -u
set -f # no pathname expansion: no word this script reads is ever a pattern

JOB=${T2_JOB:?T2_JOB is not set}
NS=${T2_NAMESPACE:?T2_NAMESPACE is not set}
RUN=${T2_RUN:-}
JM_POD=${T2_JOB_MASTER_POD:?T2_JOB_MASTER_POD is not set}
JM_CONTAINER=${T2_JOB_MASTER_CONTAINER:-twister2-job-master-0}
WORKERS=${T2_WORKER_SELECTOR:?T2_WORKER_SELECTOR is not set}
CLEANUP=${T2_CLEANUP:-}
JOB_OBJECTS=${T2_JOB_OBJECTS:-}
DEADLINE=${T2_DEADLINE:-}
BACKOFF=${T2_BACKOFF_LIMIT:-}
MAX_RESTARTS=${T2_MAX_RESTARTS:-5}
TAIL=${T2_TAIL:-200}
GRACE=${T2_KILL_GRACE:-120}
POLL=${T2_POLL:-5}
TERMINATION_LOG=${T2_TERMINATION_LOG:-/dev/termination-log}
WORK=${T2_WORK_DIR:-/tmp/t2gen-supervisor}

# 0. Namespace agreement (issue 42), a step of its own before anything else: the job
# package's runtime calls the API server only in its kubernetes.namespace
# (T2_PACKAGE_NAMESPACE, rendered from the package: K8S/KubernetesContext.java:24-25),
# and every Twister2 pod fails "Could not get ConfigMap from K8s master: <job>"
# (K8S/KubernetesController.java:941-946) when the job was applied to another namespace
# (kustomize's namespace:, Helm's, Argo CD's destination). T2_NAMESPACE is this pod's own,
# from the downward API, which is where the job was applied. Touches nothing.
if [ -n "${T2_PACKAGE_NAMESPACE:-}" ] && [ "$T2_PACKAGE_NAMESPACE" != "$NS" ]; then
  mismatch="the job was applied to namespace $NS, but its package runs in namespace $T2_PACKAGE_NAMESPACE: every Twister2 pod would fail \"Could not get ConfigMap from K8s master: $JOB\"; render and package it with -n $NS, or apply it to $T2_PACKAGE_NAMESPACE"
  printf 'NamespaceMismatch: %s\n' "$mismatch" >"$TERMINATION_LOG" 2>/dev/null || true
  printf '%s t2gen-supervisor %s: NamespaceMismatch: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$JOB" "$mismatch"
  exit 1
fi

# Nothing the job writes can steer this script (issue 40): the job's own code may patch its
# ConfigMap (the worker Role allows it), so every object is read as JSON and parsed by jq,
# which the image ships (alpine/k8s: `apk add --update --no-cache jq yq` in its Dockerfile,
# github.com/alpine-docker/k8s, since alpine/k8s:1.17.5). jq turns each object into one
# line of words it validates itself: a fixed word, a 0/1, a number, or a name that matches
# the API server's own rule for that field; anything else becomes "?" or is skipped. So no
# value (newline, space, glob, quote) reaches the shell's word splitting, and with `set -f`
# no word is ever a pattern.
#
# STATE: a ConfigMap, or a watch event {type, object}, as
#   "<TYPE> <KILL> <OWNER> <MOST> <WORKER>": TYPE the event's type (GET for a plain get);
#   KILL 1 if the data has KILL_JOB (any value: K8S/master/JobKillWatcher.java:93-96), else
#   0; OWNER the T2GEN_SUPERVISOR mark ("-" if none, "?" if it is no UID-like word); MOST
#   and WORKER the highest RESTART_COUNT_FOR_WORKER_<id> and its id (-1 and "-" if none).
#   The job master's own RESTART_COUNT_FOR_JOB_MASTER is not a worker's restart: Twister2
#   fails a job by its workers' counts only (K8S/worker/K8sWorkerStarter.java:173-180).
STATE='
  objects
  | (if has("object") then (.type | if IN("ADDED", "MODIFIED", "DELETED") then . else "OTHER" end) else "GET" end) as $type
  | (if has("object") then .object else . end | if type == "object" then .data else null end
     | if type == "object" then . else {} end) as $data
  | ($data.T2GEN_SUPERVISOR) as $owner
  | ([$data | to_entries[]
      | select((.key | test("^RESTART_COUNT_FOR_WORKER_[0-9]{1,9}$"))
               and (.value | type == "string" and test("^[0-9]{1,9}$")))
      | [(.value | tonumber), (.key | ltrimstr("RESTART_COUNT_FOR_WORKER_") | tonumber)]]
     | max // [-1, "-"]) as $most
  | "\($type) \(if $data | has("KILL_JOB") then 1 else 0 end) \(
      if $owner == null then "-" elif ($owner | type == "string" and test("^[0-9A-Za-z][-0-9A-Za-z]{0,63}$")) then $owner else "?" end
    ) \($most[0]) \($most[1])"'
# PODS: the worker pods' list, with $seen (the restart counts already logged), as one line of
# JSON (the counts now), then "<pod> <container> <restartCount>" of each container that
# restarted since: names as the API server allows them (a pod's a DNS subdomain, a
# container's a DNS label; kubernetes/kubernetes pkg/apis/core/validation/validation.go),
# anything else skipped. One kubectl and one jq a poll, whatever the number of pods.
PODS='
  ($seen[0] // {}) as $before
  | [(.items? // [])[]? | objects
      | (.metadata | objects | .name) as $pod
      | select($pod | type == "string" and test("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"))
      | (.status | objects | .containerStatuses)[]? | objects
      | select((.name | type == "string" and test("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"))
               and (.restartCount | type == "number"))
      | {key: "\($pod) \(.name)", value: .restartCount}] as $now
  | ($now | from_entries | tojson),
    ($now[] | select(.value > ($before[.key] // 0)) | "\(.key) \(.value)")'
# LOGS_PER_POLL: at most this many previous logs are copied a poll (a whole gang restarting
# at once costs one poll's bound; the others are counted, not copied).
LOGS_PER_POLL=${T2_LOGS_PER_POLL:-8}

EVENTS=$WORK/events
FIFO=$WORK/watch.fifo
JM_LOG=$WORK/job-master.log
SEEN=$WORK/restarts.json
WATCH_PID=
PARSE_PID=
FOLLOW_PID=
REASON=
KILLED_AT=

mkdir -p "$WORK" || exit 1
: >"$EVENTS"
: >"$JM_LOG"
printf '{}\n' >"$SEEN"
rm -f "$FIFO"
mkfifo "$FIFO" || exit 1

log() {
  printf '%s t2gen-supervisor %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$JOB" "$*"
}

k() {
  kubectl --namespace "$NS" "$@"
}

# Background kubectl runs are started as plain commands, not through k(): `k ... &`
# forks a subshell that runs kubectl as its own child, so $! would be the subshell's
# and kill would leave kubectl running. wait reaps each before the script goes on.
stop_background() {
  for pid in $WATCH_PID $PARSE_PID $FOLLOW_PID; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  WATCH_PID=
  PARSE_PID=
  FOLLOW_PID=
}

# finish CODE REASON MESSAGE [cleanup]: the termination message, the log, the exit status.
finish() {
  stop_background
  if [ "${4:-}" = cleanup ] && [ -n "$CLEANUP" ]; then
    log "deleting what the job master leaves: $CLEANUP"
    # shellcheck disable=SC2086 # one TYPE/NAME a word
    k delete $CLEANUP --ignore-not-found --wait=false || log "some of it could not be deleted"
  fi
  if [ -s "$JM_LOG" ]; then
    log "the job master's log, last $TAIL lines:"
    tail -n "$TAIL" "$JM_LOG"
  fi
  printf '%s: %s\n' "$2" "$3" >"$TERMINATION_LOG" 2>/dev/null || true
  log "$2: $3"
  exit "$1"
}

# Stopped (SIGTERM: its Job or pod deleted, the pod evicted or preempted, or past its own
# activeDeadlineSeconds): clean up only if the job has ended. While it runs, every pod's
# token is bound to its ServiceAccount's UID, so deleting the accounts would fail each API
# call of the job from then on (issue 40; tests/kubeapi/test_lifecycle.py).
stopped() {
  if [ -n "${ended:-}" ]; then
    finish 1 Terminated "the supervisor was stopped after the job ended" cleanup
  fi
  finish 1 Terminated "the supervisor was stopped (deleted, evicted, or past its own activeDeadlineSeconds) before the job ended; it deleted nothing (t2gen status says what is left)"
}
trap stopped TERM INT

who() {
  case $1 in
    '' | *[!0-9]*) printf 'a worker' ;;
    *) printf 'worker %s' "$1" ;;
  esac
}

# The watch: kubectl prints each event as JSON into a FIFO, jq turns it into one STATE line.
start_watch() {
  # exec: $! is then jq's and kubectl's own process, which end_watch stops
  (exec jq --unbuffered -r "$STATE") <"$FIFO" >>"$EVENTS" 2>>"$WORK/watch.err" &
  PARSE_PID=$!
  (exec kubectl --namespace "$NS" get configmap "$JOB" --watch --output-watch-events -o json) >"$FIFO" 2>>"$WORK/watch.err" &
  WATCH_PID=$!
}

# Stop the watch, and wait for its parser to write what it read (it ends at the FIFO's end).
end_watch() {
  [ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
  [ -n "$PARSE_PID" ] && wait "$PARSE_PID" 2>/dev/null
  WATCH_PID=
  PARSE_PID=
}

follow_job_master() {
  if [ -n "$FOLLOW_PID" ] && kill -0 "$FOLLOW_PID" 2>/dev/null; then
    return 0
  fi
  phase=$(k get pod "$JM_POD" -o json 2>/dev/null | jq -r '.status.phase // ""' 2>/dev/null) || return 0
  if [ "$phase" = Running ]; then
    (exec kubectl --namespace "$NS" logs --follow "$JM_POD" -c "$JM_CONTAINER") >>"$JM_LOG" 2>&1 &
    FOLLOW_PID=$!
  fi
}

# Copy the previous log of every worker container that restarted since the last look: one
# list and one jq, then at most LOGS_PER_POLL logs.
keep_restarted_logs() {
  k get pods -l "$WORKERS" -o json 2>/dev/null |
    jq -r --slurpfile seen "$SEEN" "$PODS" >"$WORK/pods" 2>/dev/null
  [ -s "$WORK/pods" ] || return 0 # no list (an error): the counts stay as they were
  head -n 1 "$WORK/pods" >"$SEEN.new" && mv "$SEEN.new" "$SEEN"
  restarted=$(($(wc -l <"$WORK/pods") - 1))
  sed -n "2,$((LOGS_PER_POLL + 1))p" "$WORK/pods" | while read -r pod container count; do
    log "$pod/$container restarted ($count); its previous log, last $TAIL lines:"
    k logs "$pod" -c "$container" --previous --tail="$TAIL" 2>&1
  done
  if [ "$restarted" -gt "$LOGS_PER_POLL" ]; then
    log "$((restarted - LOGS_PER_POLL)) more containers restarted; their logs are not kept"
  fi
}

kill_job() {
  REASON=$1
  KILL_MESSAGE=$2
  KILLED_AT=$(date +%s)
  log "$REASON: $KILL_MESSAGE; killing the job as twister2 kill does (KILL_JOB)"
  k patch configmap "$JOB" --type=json -p '[{"op":"add","path":"/data/KILL_JOB","value":"true"}]' >/dev/null ||
    log "could not set KILL_JOB"
}

# state LINE: set TYPE KILL OWNER MOST WORKER from a STATE line (safe words, see STATE).
state() {
  # shellcheck disable=SC2086 # jq's words: no glob (set -f), no space inside one
  set -- ${1:-NONE 0 - -1 -}
  TYPE=$1 KILL=$2 OWNER=$3 MOST=$4 WORKER=$5
}

# 1. Refuse to run over an earlier run's ConfigMap.
if ! k get configmap "$JOB" -o json >"$WORK/configmap.json" 2>"$WORK/get.err"; then
  finish 1 ConfigMapMissing "ConfigMap $JOB is not in namespace $NS ($(head -c 300 "$WORK/get.err" | tr -c '[:alnum:][:space:]_./:()"-' '?' | tr '\n' ' ')): the job has not been applied, or has already ended and deleted it"
fi
state "$(jq -r "$STATE" <"$WORK/configmap.json" 2>/dev/null)"
rm -f "$WORK/configmap.json"
clear="kubectl delete statefulsets,services,configmaps -n $NS -l t2-job=$JOB --ignore-not-found, then apply the job again"
if [ "$KILL" = 1 ]; then
  finish 1 Leftovers "ConfigMap $JOB already holds KILL_JOB, left by an earlier run that was killed: the job master would end this run at once; to run again: $clear"
fi
if [ "$OWNER" != - ] && [ "$OWNER" != "$RUN" ]; then
  finish 1 Leftovers "ConfigMap $JOB belongs to an earlier run (supervisor $OWNER), with its restart counts: this run would start as restarted workers; to run again: $clear"
fi
if [ "$OWNER" = - ]; then
  mark=$(jq -cn --arg run "$RUN" '[{op: "add", path: "/data/T2GEN_SUPERVISOR", value: $run}]')
  k patch configmap "$JOB" --type=json -p "$mark" >/dev/null ||
    log "could not mark ConfigMap $JOB as this run's"
fi
log "supervising job $JOB in namespace $NS (run $RUN)"

# 2. Follow the job to the ConfigMap's DELETED event.
START=$(date +%s)
start_watch
ended=
while :; do
  if grep -q '^DELETED ' "$EVENTS"; then
    ended=deleted
    break
  fi
  if ! kill -0 "$WATCH_PID" 2>/dev/null || ! kill -0 "$PARSE_PID" 2>/dev/null; then
    # A watch ends after the API server's timeout; its last event is still in $EVENTS.
    end_watch
    if k get configmap "$JOB" -o name >/dev/null 2>&1; then
      start_watch
    else
      ended=gone
      break
    fi
  fi
  follow_job_master
  keep_restarted_logs
  now=$(date +%s)
  state "$(tail -n 1 "$EVENTS")"
  if [ -z "$REASON" ] && [ -n "$DEADLINE" ] && [ $((now - START)) -ge "$DEADLINE" ]; then
    kill_job DeadlineExceeded "the job ran longer than its deadline of $DEADLINE s (activeDeadlineSeconds)"
  fi
  if [ -z "$REASON" ] && [ -n "$BACKOFF" ]; then
    if [ "$MOST" -gt "$BACKOFF" ]; then
      kill_job BackoffLimitExceeded "$(who "$WORKER") restarted $MOST times, more than the backoffLimit of $BACKOFF"
    fi
  fi
  if [ -n "$KILLED_AT" ] && [ $((now - KILLED_AT)) -ge "$GRACE" ]; then
    ended=unanswered
    break
  fi
  sleep "$POLL"
done

# 3. How did it end? The DELETED event carries the ConfigMap's last state.
keep_restarted_logs
if [ -n "$FOLLOW_PID" ]; then
  # The job master deletes its own StatefulSet last, which ends the log stream.
  waited=0
  while kill -0 "$FOLLOW_PID" 2>/dev/null && [ "$waited" -lt 30 ]; do
    sleep 1
    waited=$((waited + 1))
  done
fi
end_watch
state "$(tail -n 1 "$EVENTS")"

if [ "$ended" = unanswered ]; then
  if [ -n "$JOB_OBJECTS" ]; then
    log "the job master did not end the job within $GRACE s of KILL_JOB; deleting the job's objects: $JOB_OBJECTS"
    # shellcheck disable=SC2086
    k delete $JOB_OBJECTS --ignore-not-found --wait=false || log "some of them could not be deleted"
  fi
  finish 1 "$REASON" "$KILL_MESSAGE; the job master did not end the job within $GRACE s, so the supervisor deleted its objects" cleanup
fi
if [ -n "$REASON" ]; then
  finish 1 "$REASON" "$KILL_MESSAGE; the job master ended the job" cleanup
fi
if [ "$KILL" = 1 ]; then
  finish 1 Killed "the job was killed (KILL_JOB was set in ConfigMap $JOB, as twister2 kill does)" cleanup
fi
failed=$(grep -o 'Worker: [0-9]* FULLY_FAILED' "$JM_LOG" | head -n 1 | cut -d ' ' -f 2)
if [ -n "$failed" ]; then
  finish 1 WorkerFailed "worker $failed fully failed, so the job failed (the job master's log)" cleanup
fi
if [ "$MOST" -ge "$MAX_RESTARTS" ]; then
  finish 1 WorkerFailed "$(who "$WORKER") restarted $MOST times, Twister2's limit ($MAX_RESTARTS), so the job failed" cleanup
fi
if grep -q 'The job is completing with failure' "$JM_LOG"; then
  finish 1 Failed "the job master ended the job as failed (its log)" cleanup
fi
if [ "$ended" = gone ]; then
  finish 0 Completed "the job ended (ConfigMap $JOB was deleted between two watches, so its last state is the one seen last)" cleanup
fi
finish 0 Completed "the job completed: the job master deleted its objects with no kill and no failed worker" cleanup
