# t2gen: place the job package where Twister2's get_job_package.sh waits for it (docs/package.md).
# Env: POD_MEMORY_VOLUME JOB_PACKAGE_FILENAME JOB_PACKAGE_FILE_SIZE [JOB_PACKAGE_SHA256] and
# JOB_PACKAGE_PATH (copy) or JOB_PACKAGE_URL + JOB_PACKAGE_DEADLINE_SECONDS (download).
set -u

name=$JOB_PACKAGE_FILENAME
target=$POD_MEMORY_VOLUME/$name
part=$POD_MEMORY_VOLUME/.$name.part
size=$JOB_PACKAGE_FILE_SIZE
sum=${JOB_PACKAGE_SHA256:-}
seconds=${JOB_PACKAGE_DEADLINE_SECONDS:-600}
deadline=$(($(date +%s) + seconds))

fail() {
  rm -f "$part"
  line="t2gen: job package $name: $1"
  printf '%s\n' "$line" >&2
  printf '%s\n' "$line" >"${TERMINATION_MESSAGE_PATH:-/dev/termination-log}" 2>/dev/null
  exit 1
}

# wrong FILE: what is wrong with FILE (its size, its SHA-256), empty if nothing.
wrong() {
  got=$(wc -c <"$1") || { printf 'no size (unreadable)'; return 0; }
  got=$((got + 0))
  if [ "$got" -ne "$size" ]; then
    printf '%s bytes, not %s' "$got" "$size"
  elif [ -n "$sum" ]; then
    got=$(sha256sum <"$1") || { printf 'no SHA-256 (unreadable)'; return 0; }
    got=${got%% *}
    [ "$got" = "$sum" ] || printf 'SHA-256 %s, not %s' "$got" "$sum"
  fi
}

place() {
  mv -f "$part" "$target" || fail "cannot rename $part to $target"
  echo "t2gen: job package $name placed at $target ($size bytes)"
  exit 0
}

if [ -f "$target" ] && [ -z "$(wrong "$target")" ]; then
  echo "t2gen: job package $name already at $target"
  exit 0
fi

if [ -n "${JOB_PACKAGE_PATH:-}" ]; then
  [ -f "$JOB_PACKAGE_PATH" ] ||
    fail "the image volume has no $JOB_PACKAGE_PATH: the node's container runtime did not mount the OCI artifact's layer as a file (CRI-O does; containerd does not yet): use jobPackage.source.url"
  cp "$JOB_PACKAGE_PATH" "$part" || fail "cannot copy $JOB_PACKAGE_PATH to $part"
  why=$(wrong "$part")
  [ -z "$why" ] || fail "$JOB_PACKAGE_PATH has $why: the artifact does not hold this job's package"
  place
fi

url=$JOB_PACKAGE_URL
shown=${url%%\?*} # a presigned URL's signature stays out of logs and messages
delay=100 # milliseconds before the next attempt: doubled each time, at most 15 s
attempt=0
why="no attempt"
while :; do
  left=$((deadline - $(date +%s)))
  if [ "$left" -le 0 ]; then
    [ "$attempt" -eq 0 ] ||
      fail "not had from $shown within $seconds s ($attempt attempts; the last: $why)"
    left=1 # the first attempt is made however late this started (a whole second passed)
  fi
  attempt=$((attempt + 1))
  rm -f "$part"
  timeout "$left" wget -q --tries=1 --timeout=60 -O "$part" "$url"
  code=$?
  if [ "$code" -eq 0 ]; then
    why=$(wrong "$part")
    [ -z "$why" ] && place
    case $why in
      SHA-256*) fail "$shown served $why: the server holds another package" ;;
    esac
    got=$(wc -c <"$part")
    [ "$((got + 0))" -lt "$size" ] || fail "$shown served $why: the server holds another package"
    why="it served $why (cut short, or still being uploaded)"
  else
    case $code in
      124) why="no answer before the deadline" ;;
      4) why="wget exit 4: network failure (no server there yet?)" ;;
      5) why="wget exit 5: TLS certificate not verified" ;;
      6) why="wget exit 6: authentication failed" ;;
      8) why="wget exit 8: the server answered with an error (the file not there yet?)" ;;
      *) why="wget exit $code" ;;
    esac
  fi
  echo "t2gen: job package $name: attempt $attempt: $why"
  wait_ms=$delay
  [ "$wait_ms" -le $((left * 1000)) ] || wait_ms=$((left * 1000))
  sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
  delay=$((delay * 2))
  [ "$delay" -le 15000 ] || delay=15000
done
