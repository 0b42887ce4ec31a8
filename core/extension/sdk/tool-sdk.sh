# shellcheck shell=bash
# tool-sdk.sh: Boris's shell SDK for extension tools.
#
# An extension tool sources this file with
#     source "${MCP_SDK:?}/tool-sdk.sh"
# and gets the helper functions that mcp-bash-framework documents for tools
# (arguments, results, errors, progress, cancellation, logging), implemented
# over the environment Boris gives every tool process:
#
#   MCP_TOOL_ARGS_JSON / MCP_TOOL_ARGS_FILE   the call's arguments object
#   MCP_TOOL_META_JSON / MCP_TOOL_META_FILE   the request's _meta object
#   MCP_PROGRESS_TOKEN, MCP_PROGRESS_STREAM   progress, one JSON object a line
#   MCP_LOG_STREAM                            logs, one JSON object a line
#   MCP_TOOL_CANCELLATION_FILE (MCP_CANCEL_FILE)  exists once cancelled
#   MCP_TOOL_ERROR_FILE                       where mcp_fail writes its error
#   MCPBASH_JSON_TOOL (jq|none), MCPBASH_JSON_TOOL_BIN
#
# The result of a call is the tool's stdout: one JSON object with a
# "content" array is taken as the CallToolResult, anything else as text.
#
# Written for bash 3.2 and later. It is safe under `set -euo pipefail`, and
# it changes no shell option of the tool that sources it. Without jq it runs
# in minimal mode: JSON is built and read by a small parser in bash, which
# handles arguments read with simple filters (".a.b // default"); helpers
# that need a real jq filter fail with a message saying so.
#
# Every call pays for parsing this file, so it holds only what most tools
# use: arguments, JSON building, results, errors, progress, cancellation and
# logging. The rest (roots and paths, embedded resources, truncation,
# retries, configuration, mcp_run_with_progress, and the JSON parser in bash
# that minimal mode and unusual results need) is in tool-sdk-more.sh beside
# it, which the first call of any of it loads (see __mcp_sdk_more).

if [ -n "${__MCP_SDK_LOADED:-}" ]; then
	return 0
fi
__MCP_SDK_LOADED=1

# ---------------------------------------------------------------- internals

# Which JSON processor to use: the host says jq or none; run by hand (neither
# variable set) the SDK looks for jq on PATH.
__mcp_sdk_jq=""
case "${MCPBASH_JSON_TOOL:-}" in
none) ;;
"")
	if command -v jq >/dev/null 2>&1; then
		__mcp_sdk_jq="$(command -v jq)"
		MCPBASH_JSON_TOOL=jq
		MCPBASH_JSON_TOOL_BIN="${__mcp_sdk_jq}"
	fi
	;;
*)
	if command -v "${MCPBASH_JSON_TOOL_BIN:-${MCPBASH_JSON_TOOL}}" >/dev/null 2>&1; then
		__mcp_sdk_jq="${MCPBASH_JSON_TOOL_BIN:-${MCPBASH_JSON_TOOL}}"
	fi
	;;
esac
if [ "${MCPBASH_MODE:-}" = "minimal" ] || [ "${MCPBASH_FORCE_MINIMAL:-}" = "true" ]; then
	__mcp_sdk_jq=""
fi
if [ -n "${__mcp_sdk_jq}" ]; then
	MCPBASH_MODE=full
else
	MCPBASH_MODE=minimal
fi
MCP_TOOL_CANCELLATION_FILE="${MCP_TOOL_CANCELLATION_FILE:-${MCP_CANCEL_FILE:-}}"

# Inputs larger than this are not parsed in bash (minimal mode): the parser
# is linear in tokens but copies the rest of its input at each one.
__mcp_sdk_scan_max=262144

# Set once a result helper has printed a CallToolResult, so that a second one
# (a tool that reports an error and carries on) cannot spoil the first.
__mcp_sdk_done=""

# Where tool-sdk-more.sh is: beside this file (MCP_SDK when this file was
# found on PATH), as an absolute path, since the tool may change directory.
case "${BASH_SOURCE[0]-}" in
*/*) __mcp_sdk_dir="${BASH_SOURCE[0]%/*}" ;;
*) __mcp_sdk_dir="${MCP_SDK:-.}" ;;
esac
case "${__mcp_sdk_dir}" in
/*) ;;
*) __mcp_sdk_dir="${PWD}/${__mcp_sdk_dir}" ;;
esac

# __mcp_sdk_more FUNCTION ARGS...: loads tool-sdk-more.sh, which replaces
# the stubs below with the real functions, then runs FUNCTION. It keeps no
# locals: the helpers it runs see their caller's variables, as bash scopes
# them, and only those.
__mcp_sdk_more() {
	if [ -n "${__mcp_sdk_more_loaded}" ]; then
		__mcp_sdk_warn "$1: not defined by ${__mcp_sdk_dir}/tool-sdk-more.sh"
		return 127
	fi
	__mcp_sdk_more_loaded=1
	if ! . "${__mcp_sdk_dir}/tool-sdk-more.sh"; then
		__mcp_sdk_warn "$1: could not load ${__mcp_sdk_dir}/tool-sdk-more.sh"
		return 1
	fi
	"$@"
}
__mcp_sdk_more_loaded=""

# Stubs of the helpers in tool-sdk-more.sh (documented there) that tools and
# this file call.
__mcp_sdk_scan() { __mcp_sdk_more __mcp_sdk_scan "$@"; }
__mcp_sdk_query_min() { __mcp_sdk_more __mcp_sdk_query_min "$@"; }
__mcp_sdk_error_obj_min() { __mcp_sdk_more __mcp_sdk_error_obj_min "$@"; }
mcp_path_normalize() { __mcp_sdk_more mcp_path_normalize "$@"; }
mcp_roots_list() { __mcp_sdk_more mcp_roots_list "$@"; }
mcp_roots_count() { __mcp_sdk_more mcp_roots_count "$@"; }
mcp_roots_contains() { __mcp_sdk_more mcp_roots_contains "$@"; }
mcp_require_path() { __mcp_sdk_more mcp_require_path "$@"; }
mcp_result_text_with_resource() { __mcp_sdk_more mcp_result_text_with_resource "$@"; }
mcp_json_truncate() { __mcp_sdk_more mcp_json_truncate "$@"; }
mcp_extract_cli_error() { __mcp_sdk_more mcp_extract_cli_error "$@"; }
mcp_run_with_progress() { __mcp_sdk_more mcp_run_with_progress "$@"; }
mcp_debug() { __mcp_sdk_more mcp_debug "$@"; }
mcp_with_retry() { __mcp_sdk_more mcp_with_retry "$@"; }
mcp_config_load() { __mcp_sdk_more mcp_config_load "$@"; }
mcp_config_get() { __mcp_sdk_more mcp_config_get "$@"; }
mcp_download_safe() { __mcp_sdk_more mcp_download_safe "$@"; }
mcp_download_safe_or_fail() { __mcp_sdk_more mcp_download_safe_or_fail "$@"; }
mcp_result_with_ui() { __mcp_sdk_more mcp_result_with_ui "$@"; }

# __mcp_sdk_ctl: sets __mcp_sdk_ctl_chars to the control characters other
# than \b \t \n \f \r and __mcp_sdk_ctl_escs to their JSON escapes, once:
# only strings holding one need them.
__mcp_sdk_ctl_chars=()
__mcp_sdk_ctl_escs=()
__mcp_sdk_ctl() {
	local i=1 o c
	[ "${#__mcp_sdk_ctl_chars[@]}" = 0 ] || return 0
	while [ "${i}" -lt 32 ]; do
		case "${i}" in
		8 | 9 | 10 | 12 | 13) ;;
		*)
			printf -v o '\\%03o' "${i}"
			printf -v c "${o}"
			__mcp_sdk_ctl_chars[${#__mcp_sdk_ctl_chars[@]}]="${c}"
			printf -v o '\\u%04x' "${i}"
			__mcp_sdk_ctl_escs[${#__mcp_sdk_ctl_escs[@]}]="${o}"
			;;
		esac
		i=$((i + 1))
	done
}

__mcp_sdk_warn() {
	printf '%s\n' "$*" >&2
}

# __mcp_sdk_esc VALUE: sets __mcp_sdk_r to VALUE as a JSON string literal.
__mcp_sdk_esc() {
	case "${1-}" in
	*[\"\\[:cntrl:]]*) ;;
	*)
		__mcp_sdk_r="\"${1-}\"" # nothing to escape: the common case, made cheap
		return 0
		;;
	esac
	local v="${1-}" i
	v="${v//\\/\\\\}"
	v="${v//\"/\\\"}"
	case "${v}" in
	*[[:cntrl:]]*)
		v="${v//$'\n'/\\n}"
		v="${v//$'\r'/\\r}"
		v="${v//$'\t'/\\t}"
		v="${v//$'\b'/\\b}"
		v="${v//$'\f'/\\f}"
		__mcp_sdk_ctl
		i=0
		while [ "${i}" -lt "${#__mcp_sdk_ctl_chars[@]}" ]; do
			case "${v}" in
			*"${__mcp_sdk_ctl_chars[${i}]}"*)
				v="${v//"${__mcp_sdk_ctl_chars[${i}]}"/${__mcp_sdk_ctl_escs[${i}]}}"
				;;
			esac
			i=$((i + 1))
		done
		;;
	esac
	__mcp_sdk_r="\"${v}\""
}

# __mcp_sdk_flat JSON: returns 0 if JSON is, without whitespace, an object
# or array whose members are strings, integers, true, false or null (what
# mcp_json_obj and mcp_json_arr print), and sets __mcp_sdk_type; else
# returns 1, and __mcp_sdk_scan (in tool-sdk-more.sh: the full parser)
# decides. It matches patterns, never a regular expression: compiling one
# costs a new process more than all of this.
__mcp_sdk_flat() {
	local LC_ALL=C
	local s="${1-}" close v
	case "${s}" in
	'{}') __mcp_sdk_type=object && return 0 ;;
	'[]') __mcp_sdk_type=array && return 0 ;;
	\{*\}) close='}' __mcp_sdk_type=object ;;
	\[*\]) close=']' __mcp_sdk_type=array ;;
	*) return 1 ;;
	esac
	[ "${#s}" -le 4096 ] || return 1
	s="${s:1}"
	while :; do
		if [ "${close}" = '}' ]; then
			__mcp_sdk_flat_str || return 1
			[ "${s:0:1}" = : ] || return 1
			s="${s:1}"
		fi
		case "${s}" in
		\"*) __mcp_sdk_flat_str || return 1 ;;
		true* | null*) s="${s:4}" ;;
		false*) s="${s:5}" ;;
		*)
			v="${s%%[!0-9-]*}"
			case "${v#-}" in '' | *[!0-9]* | 0?*) return 1 ;; esac
			s="${s:${#v}}"
			;;
		esac
		case "${s}" in
		"${close}") return 0 ;;
		,*) s="${s:1}" ;;
		*) return 1 ;;
		esac
	done
}

# __mcp_sdk_flat_str: takes the JSON string at the start of __mcp_sdk_flat's
# s off it; returns 1 if there is none.
__mcp_sdk_flat_str() {
	local str="" part tail
	[ "${s:0:1}" = '"' ] || return 1
	s="${s:1}"
	while :; do
		case "${s}" in *\"*) ;; *) return 1 ;; esac
		part="${s%%\"*}"
		str="${str}${part}"
		s="${s:${#part}+1}"
		tail="${str##*[!\\]}" # the backslashes before this quote
		[ $((${#tail} % 2)) = 1 ] || break
		str="${str}\""
	done
	case "${str}" in *[[:cntrl:]]*) return 1 ;; esac
	case "${str}" in
	*\\*)
		str="${str//\\\\/}"
		str="${str//\\[\"\/bfnrt]/}"
		str="${str//\\u[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]/}"
		case "${str}" in *\\*) return 1 ;; esac
		;;
	esac
}

# __mcp_sdk_oneline JSON: sets __mcp_sdk_r to JSON on one line. Raw line
# breaks can only be whitespace in valid JSON, so they become spaces.
__mcp_sdk_oneline() {
	local v="${1-}"
	v="${v//$'\n'/ }"
	__mcp_sdk_r="${v//$'\r'/ }"
}

# __mcp_sdk_is_json VALUE: 0 iff VALUE is exactly one JSON value.
__mcp_sdk_is_json() {
	local rc=0
	if [ -n "${__mcp_sdk_jq}" ]; then
		printf '%s' "${1-}" | "${__mcp_sdk_jq}" -e -s 'length == 1' >/dev/null 2>&1
		return
	fi
	__mcp_sdk_scan "${1-}" || rc=$?
	# Too large to check in bash: take it as the caller's JSON.
	[ "${rc}" = 0 ] || [ "${rc}" = 2 ]
}

# __mcp_sdk_payload VAR FILEVAR: sets __mcp_sdk_r to the JSON held in the file
# FILEVAR names, else in VAR, else {}. xtrace is paused: payloads may hold
# secrets.
__mcp_sdk_payload() {
	local xtrace="" file="" v=""
	case $- in *x*)
		xtrace=1
		set +x
		;;
	esac
	eval "file=\"\${$2:-}\""
	if [ -n "${file}" ] && [ -r "${file}" ]; then
		v="$(cat "${file}")"
	else
		eval "v=\"\${$1:-}\""
	fi
	[ -n "${v}" ] || v="{}"
	__mcp_sdk_r="${v}"
	[ -z "${xtrace}" ] || set -x
}

# __mcp_sdk_query WHO JSON FILTER: prints what `jq -rc FILTER` prints for
# JSON. Without jq, FILTER may be ".", a path of plain keys (".a.b") and an
# optional "// ALTERNATIVE" (a JSON literal or empty); other filters fail
# (__mcp_sdk_query_min).
__mcp_sdk_query() {
	local who="$1" json="$2" filter="$3" out="" rc=0
	if [ -z "${__mcp_sdk_jq}" ]; then
		__mcp_sdk_query_min "$@"
		return
	fi
	# The x keeps the value's own trailing newlines; jq's last is dropped.
	out="$(printf '%s' "${json}" | "${__mcp_sdk_jq}" -rc "${filter}" && printf x)" || rc=$?
	out="${out%x}"
	out="${out%$'\n'}"
	if [ "${rc}" != 0 ]; then
		__mcp_sdk_warn "${who}: jq failed (status ${rc}) on filter ${filter}"
		return "${rc}"
	fi
	printf '%s' "${out}"
}

# __mcp_sdk_uint VALUE DEFAULT: prints VALUE if it is digits, else DEFAULT.
__mcp_sdk_uint() {
	case "${1-}" in
	'' | *[!0-9]*) printf '%s' "$2" ;;
	*) printf '%s' "$1" ;;
	esac
}

# ---------------------------------------------------------------- JSON

# mcp_json_escape VALUE: prints VALUE as a JSON string literal (with quotes).
mcp_json_escape() {
	__mcp_sdk_esc "${1-}"
	printf '%s' "${__mcp_sdk_r}"
}

# mcp_json_obj KEY VALUE...: prints an object of string members.
mcp_json_obj() {
	if [ $(($# % 2)) -ne 0 ]; then
		__mcp_sdk_warn "mcp_json_obj: expected key value pairs, got $# arguments"
		exit 1
	fi
	local out="{" sep=""
	while [ "$#" -gt 0 ]; do
		__mcp_sdk_esc "$1"
		out="${out}${sep}${__mcp_sdk_r}:"
		__mcp_sdk_esc "$2"
		out="${out}${__mcp_sdk_r}"
		sep=","
		shift 2
	done
	printf '%s}' "${out}"
}

# mcp_json_arr VALUE...: prints an array of strings.
mcp_json_arr() {
	local out="[" sep=""
	while [ "$#" -gt 0 ]; do
		__mcp_sdk_esc "$1"
		out="${out}${sep}${__mcp_sdk_r}"
		sep=","
		shift
	done
	printf '%s]' "${out}"
}

# mcp_is_valid_json VALUE: 0 iff VALUE is exactly one JSON value.
mcp_is_valid_json() {
	__mcp_sdk_is_json "${1-}"
}

# mcp_byte_length VALUE: prints VALUE's length in bytes.
# __mcp_sdk_bytes S: sets __mcp_sdk_r to the length of S in bytes, without
# a subshell.
__mcp_sdk_bytes() {
	local LC_ALL=C
	__mcp_sdk_r="${#1}"
}

mcp_byte_length() {
	local LC_ALL=C
	local v="${1-}"
	printf '%s' "${#v}"
}

# ---------------------------------------------------------------- arguments

# mcp_args_raw: prints the arguments object.
mcp_args_raw() {
	__mcp_sdk_payload MCP_TOOL_ARGS_JSON MCP_TOOL_ARGS_FILE
	printf '%s' "${__mcp_sdk_r}"
}

# mcp_args_get FILTER: prints `jq -rc FILTER` of the arguments.
mcp_args_get() {
	__mcp_sdk_payload MCP_TOOL_ARGS_JSON MCP_TOOL_ARGS_FILE
	__mcp_sdk_query mcp_args_get "${__mcp_sdk_r}" "${1:-.}"
}

# mcp_meta_raw: prints the request's _meta object.
mcp_meta_raw() {
	__mcp_sdk_payload MCP_TOOL_META_JSON MCP_TOOL_META_FILE
	printf '%s' "${__mcp_sdk_r}"
}

# mcp_meta_get FILTER: prints `jq -rc FILTER` of the request's _meta.
mcp_meta_get() {
	__mcp_sdk_payload MCP_TOOL_META_JSON MCP_TOOL_META_FILE
	__mcp_sdk_query mcp_meta_get "${__mcp_sdk_r}" "${1:-.}"
}

# mcp_args_require FILTER [MESSAGE]: prints the value, or fails with -32602
# when it is missing, null or empty.
mcp_args_require() {
	local filter="$1" message="${2:-}" v
	v="$(mcp_args_get "${filter}")" || exit 1
	if [ -z "${v}" ] || [ "${v}" = null ]; then
		mcp_fail_invalid_args "${message:-${filter} is required}"
	fi
	printf '%s' "${v}"
}

# mcp_args_bool FILTER [--default true|false]: prints true (for true or 1) or
# false; a missing value takes the default, or fails with -32602.
mcp_args_bool() {
	local filter="$1" def="" v
	shift
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--default)
			def="${2-}"
			[ -n "${def}" ] || def=false
			shift 2 || shift $#
			;;
		*)
			__mcp_sdk_warn "mcp_args_bool: unknown option $1"
			shift
			;;
		esac
	done
	v="$(mcp_args_get "${filter}")" || exit 1
	if [ -z "${v}" ] || [ "${v}" = null ]; then
		[ -n "${def}" ] || mcp_fail_invalid_args "${filter} is required"
		v="${def}"
	fi
	case "${v}" in
	true | 1) printf 'true' ;;
	*) printf 'false' ;;
	esac
}

# mcp_args_int FILTER [--default N] [--min N] [--max N]: prints the integer;
# a missing value takes the default, or fails with -32602, as does a value
# that is not an integer or is out of range.
mcp_args_int() {
	local filter="$1" def="" min="" max="" v
	shift
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--default) def="${2-}" ;;
		--min) min="${2-}" ;;
		--max) max="${2-}" ;;
		*) __mcp_sdk_warn "mcp_args_int: unknown option $1" ;;
		esac
		shift 2 || shift $#
	done
	if [ -n "${min}" ] && [ -n "${max}" ] && ! [ "${min}" -le "${max}" ] 2>/dev/null; then
		mcp_fail -32603 "mcp_args_int: --min ${min} exceeds --max ${max}"
	fi
	v="$(mcp_args_get "${filter}")" || exit 1
	if [ -z "${v}" ] || [ "${v}" = null ]; then
		[ -n "${def}" ] || mcp_fail_invalid_args "${filter} is required"
		v="${def}"
	fi
	if ! [[ ${v} =~ ^-?[0-9]{1,18}$ ]]; then
		mcp_fail_invalid_args "${filter} must be an integer"
	fi
	v=$((10#${v#-} * ${v%%[0-9]*}1))
	if [ -n "${min}" ] && [ "${v}" -lt "${min}" ]; then
		mcp_fail_invalid_args "${filter} must be >= ${min}"
	fi
	if [ -n "${max}" ] && [ "${v}" -gt "${max}" ]; then
		mcp_fail_invalid_args "${filter} must be <= ${max}"
	fi
	printf '%s' "${v}"
}

# ---------------------------------------------------------------- results

# mcp_emit_text TEXT: prints TEXT (plain text content).
mcp_emit_text() {
	printf '%s' "${1-}"
}

# mcp_emit_json JSON: prints JSON, compacted when jq is present.
mcp_emit_json() {
	local out=""
	if [ -n "${__mcp_sdk_jq}" ]; then
		out="$(printf '%s' "${1-}" | "${__mcp_sdk_jq}" -c . 2>/dev/null)" || out=""
	fi
	printf '%s' "${out:-${1-}}"
}

# __mcp_sdk_success DATA MAX: sets __mcp_sdk_sc to {"success":true,
# "result":DATA} and __mcp_sdk_text to the text content for it (a JSON
# string literal): the envelope itself, or a summary when it is longer than
# MAX bytes. Returns 1 if DATA is not one JSON value.
__mcp_sdk_success() {
	local data="$1" max="$2" out size
	# jq for large data only: starting it costs more than checking and
	# wrapping a few kilobytes in bash. Data that surely fits under max
	# (4 bytes a character at most, plus the envelope) takes the bash way,
	# whose text is then the same as jq's.
	if [ -n "${__mcp_sdk_jq}" ] && { [ "${#data}" -gt 4096 ] || [ $((${#data} * 4 + 32)) -gt "${max}" ]; }; then
		out="$(printf '%s' "${data}" | "${__mcp_sdk_jq}" -c -s --argjson max "${max}" '
			if length != 1 then error("not one value") else .[0] end
			| {success: true, result: .} as $env
			| ($env | tojson) as $text
			| ($text | utf8bytelength) as $size
			| $env,
			  (if $size <= $max then $text
			   else (if type == "array" then "Success: array of \(length) items"
			         elif type == "object" then "Success: object with \(keys | length) keys"
			         else "Success: \(tostring | .[0:100])" end)
			        + "; the full result (\($size) bytes) is in structuredContent"
			   end)' 2>/dev/null)" || return 1
		__mcp_sdk_sc="${out%%$'\n'*}"
		__mcp_sdk_text="${out#*$'\n'}"
		return 0
	fi
	local rc=0
	__mcp_sdk_flat "${data}" || __mcp_sdk_scan "${data}" || rc=$?
	[ "${rc}" = 0 ] || [ "${rc}" = 2 ] || return 1
	__mcp_sdk_oneline "${data}"
	__mcp_sdk_sc="{\"success\":true,\"result\":${__mcp_sdk_r}}"
	__mcp_sdk_bytes "${__mcp_sdk_sc}"
	size="${__mcp_sdk_r}"
	if [ "${size}" -le "${max}" ]; then
		__mcp_sdk_esc "${__mcp_sdk_sc}"
	else
		__mcp_sdk_esc "Success: ${__mcp_sdk_type:-a} value; the full result (${size} bytes) is in structuredContent"
	fi
	__mcp_sdk_text="${__mcp_sdk_r}"
}

# __mcp_sdk_once NAME: 0 the first time a result is printed; later calls
# warn and return 1.
__mcp_sdk_once() {
	if [ -n "${__mcp_sdk_done}" ]; then
		__mcp_sdk_warn "$1: a result was already printed; this one is dropped"
		return 1
	fi
	__mcp_sdk_done=1
}

# mcp_result_success DATA [MAX_TEXT_BYTES]: prints a CallToolResult whose
# structuredContent is {"success":true,"result":DATA} and whose text is that
# JSON, or a summary when it exceeds MAX_TEXT_BYTES (MCPBASH_MAX_TEXT_BYTES,
# 102400 by default). Invalid DATA becomes an internal_error result.
mcp_result_success() {
	local data="${1-}" max
	# No subshells on this path: each is a fork.
	max="${2-}"
	case "${max}" in '' | *[!0-9]*) max="${MCPBASH_MAX_TEXT_BYTES:-}" ;; esac
	case "${max}" in '' | *[!0-9]*) max=102400 ;; esac
	if [ -z "${data}" ]; then
		mcp_result_error '{"type":"internal_error","message":"mcp_result_success: no data"}'
		return 0
	fi
	if ! __mcp_sdk_success "${data}" "${max}"; then
		mcp_result_error '{"type":"internal_error","message":"mcp_result_success: the data is not one JSON value"}'
		return 0
	fi
	__mcp_sdk_once mcp_result_success || return 0
	printf '{"content":[{"type":"text","text":%s}],"structuredContent":%s,"isError":false}\n' \
		"${__mcp_sdk_text}" "${__mcp_sdk_sc}"
}

# __mcp_sdk_error_obj ERROR: sets __mcp_sdk_err to ERROR as an error object
# (with type and message) and __mcp_sdk_text to its text content. ERROR that
# is not a JSON object becomes the message of an internal_error.
__mcp_sdk_error_obj() {
	local e="${1-}" out
	[ -n "${e}" ] || e='{"type":"internal_error","message":"Unknown error"}'
	if [ -n "${__mcp_sdk_jq}" ]; then
		out="$(printf '%s' "${e}" | "${__mcp_sdk_jq}" -c -s '
			if length == 1 and (.[0] | type) == "object" then .[0] else error("no") end
			| {type: (.type // "internal_error"), message: (.message // "Unknown error")} + .
			| ., ((.message | tostring) + (if (.hint | type) == "string" then "\nHint: " + .hint else "" end))' 2>/dev/null)" ||
			out="$("${__mcp_sdk_jq}" -c -n --arg m "${e}" '{type: "internal_error", message: $m} | ., .message')"
		__mcp_sdk_err="${out%%$'\n'*}"
		__mcp_sdk_text="${out#*$'\n'}"
		return 0
	fi
	__mcp_sdk_error_obj_min "${e}"
}

# mcp_result_error ERROR_JSON: prints a CallToolResult with isError true,
# structuredContent {"success":false,"error":ERROR} and the error's message
# (and hint) as text. It returns 0: the tool may go on to exit 0.
mcp_result_error() {
	__mcp_sdk_error_obj "${1-}"
	__mcp_sdk_once mcp_result_error || return 0
	printf '{"content":[{"type":"text","text":%s}],"structuredContent":{"success":false,"error":%s},"isError":true}\n' \
		"${__mcp_sdk_text}" "${__mcp_sdk_err}"
}

# mcp_error TYPE MESSAGE [--hint HINT] [--data JSON]: mcp_result_error with
# {"type":TYPE,"message":MESSAGE,"hint":HINT,"data":JSON}. Data that is not
# JSON is kept as {"_invalid_json":"..."}.
mcp_error() {
	local type="${1:-internal_error}" message="${2:-Unknown error}" hint="" data="" obj
	shift 2 || shift $#
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--hint) hint="${2-}" ;;
		--data) data="${2-}" ;;
		esac
		shift 2 || shift $#
	done
	__mcp_sdk_esc "${type}"
	obj="{\"type\":${__mcp_sdk_r}"
	__mcp_sdk_esc "${message}"
	obj="${obj},\"message\":${__mcp_sdk_r}"
	if [ -n "${hint}" ]; then
		__mcp_sdk_esc "${hint}"
		obj="${obj},\"hint\":${__mcp_sdk_r}"
	fi
	if [ -n "${data}" ]; then
		if __mcp_sdk_is_json "${data}"; then
			__mcp_sdk_oneline "${data}"
			obj="${obj},\"data\":${__mcp_sdk_r}"
		else
			__mcp_sdk_esc "${data}"
			obj="${obj},\"data\":{\"_invalid_json\":${__mcp_sdk_r}}"
		fi
	fi
	mcp_log_debug mcp_error "${type}: ${message}"
	mcp_result_error "${obj}}"
}

# ---------------------------------------------------------------- failure

# mcp_fail CODE MESSAGE [DATA_JSON]: ends the tool with a JSON-RPC error.
# It writes {"code":CODE,"message":MESSAGE,"data":DATA} to
# MCP_TOOL_ERROR_FILE (or stdout when run by hand), MESSAGE to stderr, and
# exits 1. The host turns -32602 into an invalid-params error and other
# codes into an isError result.
mcp_fail() {
	local code="${1-}" message="${2:-Tool failed}" data="${3-}" line
	[[ ${code} =~ ^-?[0-9]+$ ]] || code=-32603
	__mcp_sdk_esc "${message}"
	line="{\"code\":${code},\"message\":${__mcp_sdk_r}"
	if [ -n "${data}" ]; then
		if __mcp_sdk_is_json "${data}"; then
			__mcp_sdk_oneline "${data}"
		else
			__mcp_sdk_esc "${data}"
		fi
		line="${line},\"data\":${__mcp_sdk_r}"
	fi
	line="${line}}"
	if [ -n "${MCP_TOOL_ERROR_FILE:-}" ]; then
		printf '%s\n' "${line}" >"${MCP_TOOL_ERROR_FILE}" 2>/dev/null || printf '%s\n' "${line}"
	else
		printf '%s\n' "${line}"
	fi
	printf '%s\n' "${message}" >&2
	exit 1
}

# mcp_fail_invalid_args MESSAGE [DATA_JSON]: mcp_fail -32602.
mcp_fail_invalid_args() {
	mcp_fail -32602 "${1:-Invalid params}" "${2-}"
}

# ---------------------------------------------------------------- progress

# mcp_is_cancelled: 0 iff the call was cancelled or timed out.
mcp_is_cancelled() {
	[ -n "${MCP_TOOL_CANCELLATION_FILE}" ] && [ -e "${MCP_TOOL_CANCELLATION_FILE}" ]
}

# mcp_progress N [MESSAGE] [TOTAL]: reports progress N (a percentage, or out
# of TOTAL when given; decimals are cut, and N is clamped to 0..100 or
# 0..TOTAL). Nothing is sent unless the client asked for progress.
mcp_progress() {
	local n="${1-}" message="${2-}" total="${3-}" line
	[ -n "${MCP_PROGRESS_TOKEN:-}" ] && [ -n "${MCP_PROGRESS_STREAM:-}" ] || return 0
	n="${n%%.*}"
	case "${n}" in
	'' | *[!0-9]*) n=0 ;;
	esac
	n=$((10#${n}))
	case "${total%%.*}" in
	'' | *[!0-9]*) total="" ;;
	*) total=$((10#${total%%.*})) ;;
	esac
	if [ -n "${total}" ] && [ "${total}" -gt 0 ]; then
		[ "${n}" -le "${total}" ] || n="${total}"
		line="{\"progress\":${n},\"total\":${total}"
	else
		[ "${n}" -le 100 ] || n=100
		line="{\"progress\":${n}"
	fi
	if [ -n "${message}" ]; then
		__mcp_sdk_esc "${message}"
		line="${line},\"message\":${__mcp_sdk_r}"
	fi
	printf '%s}\n' "${line}" >>"${MCP_PROGRESS_STREAM}" 2>/dev/null || true
}

# ---------------------------------------------------------------- logging

# mcp_log LEVEL LOGGER MESSAGE_OR_JSON: sends a log message. The third
# argument is sent as JSON when it is one JSON value, else as a string.
# LEVEL is an RFC 5424 name (warn means warning); others become info.
mcp_log() {
	local level logger="${2:-${MCP_TOOL_NAME:-tool}}" data="${3-}" lj
	level="$(printf '%s' "${1:-info}" | tr '[:upper:]' '[:lower:]')"
	case "${level}" in
	debug | info | notice | warning | error | critical | alert | emergency) ;;
	warn) level=warning ;;
	*)
		__mcp_sdk_warn "mcp_log: unknown level '${1-}'; info used"
		level=info
		;;
	esac
	if [ -z "${MCP_LOG_STREAM:-}" ]; then
		printf '[%s] %s: %s\n' "${level}" "${logger}" "${data}" >&2
		return 0
	fi
	__mcp_sdk_esc "${logger}"
	lj="${__mcp_sdk_r}"
	if [ -n "${data}" ] && __mcp_sdk_is_json "${data}"; then
		__mcp_sdk_oneline "${data}"
	else
		__mcp_sdk_esc "${data}"
	fi
	printf '{"level":"%s","logger":%s,"data":%s}\n' "${level}" "${lj}" "${__mcp_sdk_r}" \
		>>"${MCP_LOG_STREAM}" 2>/dev/null || true
}

# __mcp_sdk_log_text LEVEL [LOGGER] MESSAGE: a log whose data is a string.
__mcp_sdk_log_text() {
	local level="$1" logger message
	shift
	if [ "$#" -ge 2 ]; then
		logger="$1"
		message="$2"
	else
		logger="${MCP_TOOL_NAME:-tool}"
		message="${1-}"
	fi
	if [ -z "${MCP_LOG_STREAM:-}" ]; then
		mcp_log "${level}" "${logger}" "${message}"
		return 0
	fi
	local lj
	__mcp_sdk_esc "${logger}"
	lj="${__mcp_sdk_r}"
	__mcp_sdk_esc "${message}"
	printf '{"level":"%s","logger":%s,"data":%s}\n' "${level}" "${lj}" "${__mcp_sdk_r}" \
		>>"${MCP_LOG_STREAM}" 2>/dev/null || true
}

# mcp_log_debug|info|warn|error LOGGER MESSAGE: a log whose data is MESSAGE.
mcp_log_debug() { __mcp_sdk_log_text debug "$@"; }
mcp_log_info() { __mcp_sdk_log_text info "$@"; }
mcp_log_warn() { __mcp_sdk_log_text warning "$@"; }
mcp_log_error() { __mcp_sdk_log_text error "$@"; }

# ---------------------------------------------------------------- host-less

# Boris runs extension tools without a channel back to the client, so the
# framework's elicitation, download and UI helpers cannot do their work.
# They exist so that a project calling them gets a clear answer.

__mcp_sdk_no_elicit() {
	__mcp_sdk_warn "$1: elicitation is not available to Boris extension tools (no channel to the client); treated as declined"
	printf '{"action":"decline","content":null}'
	return 1
}

# mcp_elicit and friends: print {"action":"decline","content":null} and
# return 1.
mcp_elicit() { __mcp_sdk_no_elicit mcp_elicit; }
mcp_elicit_url() { __mcp_sdk_no_elicit mcp_elicit_url; }
mcp_elicit_string() { __mcp_sdk_no_elicit mcp_elicit_string; }
mcp_elicit_confirm() { __mcp_sdk_no_elicit mcp_elicit_confirm; }
mcp_elicit_choice() { __mcp_sdk_no_elicit mcp_elicit_choice; }
mcp_elicit_titled_choice() { __mcp_sdk_no_elicit mcp_elicit_titled_choice; }
mcp_elicit_multi_choice() { __mcp_sdk_no_elicit mcp_elicit_multi_choice; }
mcp_elicit_titled_multi_choice() { __mcp_sdk_no_elicit mcp_elicit_titled_multi_choice; }

# mcp_client_supports_ui, mcp_client_supports_extension: return 1.
mcp_client_supports_ui() { return 1; }
mcp_client_supports_extension() { return 1; }

# mcp_result_with_ui_data URI TEXT DATA: mcp_result_with_ui.
mcp_result_with_ui_data() { mcp_result_with_ui "$@"; }

# mcp_ui_form, mcp_ui_table, mcp_tool_meta_with_ui: return 1 with a message.
__mcp_sdk_no_ui() {
	__mcp_sdk_warn "$1: MCP Apps UI is not supported by Boris"
	return 1
}
mcp_ui_form() { __mcp_sdk_no_ui mcp_ui_form; }
mcp_ui_table() { __mcp_sdk_no_ui mcp_ui_table; }
mcp_tool_meta_with_ui() { __mcp_sdk_no_ui mcp_tool_meta_with_ui; }
