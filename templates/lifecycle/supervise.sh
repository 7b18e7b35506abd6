#!/bin/sh
# t2gen's supervisor of one Twister2 job (docs/lifecycle.md). POSIX sh and kubectl only.
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
# Settings (environment; the Job sets them): T2_JOB, T2_NAMESPACE, T2_RUN (this Job's
# UID), T2_JOB_MASTER_POD, T2_JOB_MASTER_CONTAINER, T2_WORKER_SELECTOR, T2_CLEANUP
# (TYPE/NAME of what the job master leaves), T2_JOB_OBJECTS (TYPE/NAME of what the job
# master deletes, deleted here only when it did not), T2_DEADLINE, T2_BACKOFF_LIMIT,
# T2_MAX_RESTARTS, T2_TAIL, T2_KILL_GRACE, T2_POLL, T2_TERMINATION_LOG, T2_WORK_DIR.

set -u

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

# The ConfigMap's data, one KEY=VALUE a line, without the (large) serialised job object.
DATA='{{range $k, $v := .data}}{{if ne $k "TWISTER2_JOB_OBJECT"}}{{$k}}={{$v}}{{"\n"}}{{end}}{{end}}'
# One watch event a line: its type, then KEY=VALUE of the object's data.
EVENT='{{.type}}{{range $k, $v := .object.data}}{{if ne $k "TWISTER2_JOB_OBJECT"}} {{$k}}={{$v}}{{end}}{{end}}{{"\n"}}'
# Every container of every worker pod: "<pod> <container> <restartCount>".
RESTARTS='{{range .items}}{{$p := .metadata.name}}{{range .status.containerStatuses}}{{$p}} {{.name}} {{.restartCount}}{{"\n"}}{{end}}{{end}}'

EVENTS=$WORK/events
JM_LOG=$WORK/job-master.log
SEEN=$WORK/restarts
WATCH_PID=
FOLLOW_PID=
REASON=
KILLED_AT=

mkdir -p "$WORK" || exit 1
: >"$EVENTS"
: >"$JM_LOG"
: >"$SEEN"

log() {
  printf '%s t2gen-supervisor %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$JOB" "$*"
}

k() {
  kubectl --namespace "$NS" "$@"
}

stop_background() {
  for pid in $WATCH_PID $FOLLOW_PID; do
    kill "$pid" 2>/dev/null
  done
  WATCH_PID=
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

# value KEY LINE: the value of KEY in a line of KEY=VALUE words (empty if absent).
value() {
  for word in $2; do
    case $word in
      "$1"=*) printf '%s' "${word#*=}"; return 0 ;;
    esac
  done
  return 0
}

# most_restarts LINE: "<count> <key>" of the highest RESTART_COUNT_FOR_* in a line.
most_restarts() {
  best=-1
  best_key=
  for word in $1; do
    case $word in
      RESTART_COUNT_FOR_*=*)
        count=${word#*=}
        case $count in '' | *[!0-9]*) continue ;; esac
        if [ "$count" -gt "$best" ]; then
          best=$count
          best_key=${word%%=*}
        fi
        ;;
    esac
  done
  printf '%s %s' "$best" "$best_key"
}

who() {
  case $1 in
    RESTART_COUNT_FOR_WORKER_*) printf 'worker %s' "${1#RESTART_COUNT_FOR_WORKER_}" ;;
    *) printf 'the job master' ;;
  esac
}

start_watch() {
  k get configmap "$JOB" --watch --output-watch-events -o "go-template=$EVENT" >>"$EVENTS" 2>>"$WORK/watch.err" &
  WATCH_PID=$!
}

follow_job_master() {
  if [ -n "$FOLLOW_PID" ] && kill -0 "$FOLLOW_PID" 2>/dev/null; then
    return 0
  fi
  phase=$(k get pod "$JM_POD" -o 'go-template={{.status.phase}}' 2>/dev/null) || return 0
  if [ "$phase" = Running ]; then
    k logs --follow "$JM_POD" -c "$JM_CONTAINER" >>"$JM_LOG" 2>&1 &
    FOLLOW_PID=$!
  fi
}

# Copy the previous log of every worker container that restarted since the last look.
keep_restarted_logs() {
  k get pods -l "$WORKERS" -o "go-template=$RESTARTS" 2>/dev/null | while read -r pod container count; do
    [ -n "$count" ] || continue
    seen=$(grep "^$pod $container " "$SEEN" | tail -n 1 | cut -d ' ' -f 3)
    if [ "$count" -gt "${seen:-0}" ]; then
      log "$pod/$container restarted ($count); its previous log, last $TAIL lines:"
      k logs "$pod" -c "$container" --previous --tail="$TAIL" 2>&1
      printf '%s %s %s\n' "$pod" "$container" "$count" >>"$SEEN"
    fi
  done
}

kill_job() {
  REASON=$1
  KILL_MESSAGE=$2
  KILLED_AT=$(date +%s)
  log "$REASON: $KILL_MESSAGE; killing the job as twister2 kill does (KILL_JOB)"
  k patch configmap "$JOB" --type=json -p '[{"op":"add","path":"/data/KILL_JOB","value":"true"}]' >/dev/null ||
    log "could not set KILL_JOB"
}

# 1. Refuse to run over an earlier run's ConfigMap.
if ! initial=$(k get configmap "$JOB" -o "go-template=$DATA" 2>"$WORK/get.err"); then
  finish 1 ConfigMapMissing "ConfigMap $JOB is not in namespace $NS ($(tr '\n' ' ' <"$WORK/get.err")): the job has not been applied, or has already ended and deleted it"
fi
initial=$(printf '%s' "$initial" | tr '\n' ' ')
clear="kubectl delete statefulsets,services,configmaps -n $NS -l t2-job=$JOB --ignore-not-found, then apply the job again"
if [ -n "$(value KILL_JOB "$initial")" ]; then
  finish 1 Leftovers "ConfigMap $JOB already holds KILL_JOB, left by an earlier run that was killed: the job master would end this run at once; to run again: $clear"
fi
owner=$(value T2GEN_SUPERVISOR "$initial")
if [ -n "$owner" ] && [ "$owner" != "$RUN" ]; then
  finish 1 Leftovers "ConfigMap $JOB belongs to an earlier run (supervisor $owner), with its restart counts: this run would start as restarted workers; to run again: $clear"
fi
if [ -z "$owner" ]; then
  k patch configmap "$JOB" --type=json -p "[{\"op\":\"add\",\"path\":\"/data/T2GEN_SUPERVISOR\",\"value\":\"$RUN\"}]" >/dev/null ||
    log "could not mark ConfigMap $JOB as this run's"
fi
log "supervising job $JOB in namespace $NS (run $RUN)"

# 2. Follow the job to the ConfigMap's DELETED event.
START=$(date +%s)
start_watch
ended=
while :; do
  if grep -q '^DELETED' "$EVENTS"; then
    ended=deleted
    break
  fi
  if ! kill -0 "$WATCH_PID" 2>/dev/null; then
    # A watch ends after the API server's timeout; its last event is still in $EVENTS.
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
  last=$(tail -n 1 "$EVENTS")
  if [ -z "$REASON" ] && [ -n "$DEADLINE" ] && [ $((now - START)) -ge "$DEADLINE" ]; then
    kill_job DeadlineExceeded "the job ran longer than its deadline of $DEADLINE s (activeDeadlineSeconds)"
  fi
  if [ -z "$REASON" ] && [ -n "$BACKOFF" ]; then
    # shellcheck disable=SC2046 # two words: count and key
    set -- $(most_restarts "$last")
    if [ "$1" -gt "$BACKOFF" ]; then
      kill_job BackoffLimitExceeded "$(who "${2:-}") restarted $1 times, more than the backoffLimit of $BACKOFF"
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
final=$(tail -n 1 "$EVENTS")
# shellcheck disable=SC2046 # two words: count and key
set -- $(most_restarts "$final")
most=$1
most_key=${2:-}

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
if [ -n "$(value KILL_JOB "$final")" ]; then
  finish 1 Killed "the job was killed (KILL_JOB was set in ConfigMap $JOB, as twister2 kill does)" cleanup
fi
failed=$(grep -o 'Worker: [0-9]* FULLY_FAILED' "$JM_LOG" | head -n 1 | cut -d ' ' -f 2)
if [ -n "$failed" ]; then
  finish 1 WorkerFailed "worker $failed fully failed, so the job failed (the job master's log)" cleanup
fi
if [ "$most" -ge "$MAX_RESTARTS" ]; then
  finish 1 WorkerFailed "$(who "$most_key") restarted $most times, Twister2's limit ($MAX_RESTARTS), so the job failed" cleanup
fi
if grep -q 'The job is completing with failure' "$JM_LOG"; then
  finish 1 Failed "the job master ended the job as failed (its log)" cleanup
fi
if [ "$ended" = gone ]; then
  finish 0 Completed "the job ended (ConfigMap $JOB was deleted between two watches, so its last state is the one seen last)" cleanup
fi
finish 0 Completed "the job completed: the job master deleted its objects with no kill and no failed worker" cleanup
