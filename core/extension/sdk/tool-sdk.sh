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
#   MCP_INPUT_DIR, MCP_INPUT_ROUND            questions to the client, answers
#   MCP_ELICIT_SUPPORTED, MCP_SAMPLING_SUPPORTED, MCP_ROOTS_SUPPORTED
#                                             1 when the client can be asked
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
# Every call pays for parsing this file, about 60 ns a byte of code on a
# 2-core VM, so it holds only the common path of a tool that reads its
# arguments and prints a result: reading arguments, building JSON objects,
# mcp_result_success and mcp_is_cancelled. Every other helper (errors and
# mcp_fail, progress, logging, asking the client, roots and paths, embedded resources,
# truncation, retries, configuration, mcp_run_with_progress, and the JSON
# parser in bash that minimal mode and unusual results need) is a one-line
# stub here, and its first call loads tool-sdk-more.sh beside this file
# (see __mcp_sdk_more).

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
	__mcp_sdk_jq="${MCPBASH_JSON_TOOL_BIN:-${MCPBASH_JSON_TOOL}}"
	case "${__mcp_sdk_jq}" in
	/*) # as Boris passes it: tested here, cheaper than command -v and its redirections
		[ -f "${__mcp_sdk_jq}" ] && [ -x "${__mcp_sdk_jq}" ] || __mcp_sdk_jq=""
		;;
	*) command -v "${__mcp_sdk_jq}" >/dev/null 2>&1 || __mcp_sdk_jq="" ;;
	esac
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
__mcp_sdk_esc_ctl() { __mcp_sdk_more __mcp_sdk_esc_ctl "$@"; }
__mcp_sdk_is_json() { __mcp_sdk_more __mcp_sdk_is_json "$@"; }
__mcp_sdk_success_jq() { __mcp_sdk_more __mcp_sdk_success_jq "$@"; }
__mcp_sdk_log_text() { __mcp_sdk_more __mcp_sdk_log_text "$@"; }
mcp_is_valid_json() { __mcp_sdk_more mcp_is_valid_json "$@"; }
mcp_byte_length() { __mcp_sdk_more mcp_byte_length "$@"; }
mcp_args_raw() { __mcp_sdk_more mcp_args_raw "$@"; }
mcp_meta_raw() { __mcp_sdk_more mcp_meta_raw "$@"; }
mcp_meta_get() { __mcp_sdk_more mcp_meta_get "$@"; }
mcp_emit_text() { __mcp_sdk_more mcp_emit_text "$@"; }
mcp_emit_json() { __mcp_sdk_more mcp_emit_json "$@"; }
mcp_result_error() { __mcp_sdk_more mcp_result_error "$@"; }
mcp_error() { __mcp_sdk_more mcp_error "$@"; }
mcp_log() { __mcp_sdk_more mcp_log "$@"; }
mcp_json_arr() { __mcp_sdk_more mcp_json_arr "$@"; }
mcp_args_bool() { __mcp_sdk_more mcp_args_bool "$@"; }
mcp_args_int() { __mcp_sdk_more mcp_args_int "$@"; }
mcp_fail() { __mcp_sdk_more mcp_fail "$@"; }
mcp_fail_invalid_args() { __mcp_sdk_more mcp_fail_invalid_args "$@"; }
mcp_progress() { __mcp_sdk_more mcp_progress "$@"; }
__mcp_sdk_no_ui() { __mcp_sdk_more __mcp_sdk_no_ui "$@"; }
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
	local v="${1-}"
	v="${v//\\/\\\\}"
	v="${v//\"/\\\"}"
	case "${v}" in
	*[[:cntrl:]]*)
		v="${v//$'\n'/\\n}"
		v="${v//$'\r'/\\r}"
		v="${v//$'\t'/\\t}"
		v="${v//$'\b'/\\b}"
		v="${v//$'\f'/\\f}"
		case "${v}" in
		*[[:cntrl:]]*)
			__mcp_sdk_esc_ctl "${v}" # the rare others
			v="${__mcp_sdk_r}"
			;;
		esac
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

# __mcp_sdk_bytes S: sets __mcp_sdk_r to the length of S in bytes, without
# a subshell.
__mcp_sdk_bytes() {
	local LC_ALL=C
	__mcp_sdk_r="${#1}"
}

# ---------------------------------------------------------------- arguments

# __mcp_sdk_arg FILTER: prints what `jq -rc FILTER` prints for the
# arguments and returns 0 when FILTER is a top-level key (".name"), maybe
# with "// ALTERNATIVE" (empty, true, false, null, an integer or a string
# without escapes), and the host passed that argument in a variable of its
# own (MCP_SDK_ARG_name: "s" and a string, "j" and JSON, "x" for "ask jq";
# see core/ext_args.go); else returns 1 and jq answers. It saves starting
# jq, which costs more than the rest of a small tool.
__mcp_sdk_arg() {
	[ -n "${MCP_SDK_ARGS:-}" ] && [ -z "${MCP_TOOL_ARGS_FILE:-}" ] || return 1
	local LC_ALL=C
	local f="$1" alt="" has_alt="" v="${MCP_TOOL_ARGS_JSON-}"
	[ "${MCP_SDK_ARGS}" = "${#v}" ] || return 1 # set by hand since
	case "${f}" in
	*//*)
		has_alt=1
		alt="${f#*//}"
		alt="${alt#"${alt%%[! ]*}"}"
		alt="${alt%"${alt##*[! ]}"}"
		f="${f%%//*}"
		;;
	esac
	f="${f#"${f%%[! ]*}"}"
	f="${f%"${f##*[! ]}"}"
	case "${f}" in
	.[A-Za-z_]*) f="${f#.}" ;;
	*) return 1 ;;
	esac
	case "${f}" in
	*[!A-Za-z0-9_]* | and | or | not | if | then | elif | else | end | as | def | reduce | foreach | try | catch | label | import | include | __loc__) return 1 ;;
	esac
	[ "${#f}" -le 64 ] || return 1
	v="MCP_SDK_ARG_${f}"
	v="${!v-jnull}" # no variable: no such argument
	case "${v}" in
	s* | j*) ;;
	*) return 1 ;;
	esac
	if [ -n "${has_alt}" ] && { [ "${v}" = jnull ] || [ "${v}" = jfalse ]; }; then
		case "${alt}" in
		empty) return 0 ;;
		true | false | null | 0) v="j${alt}" ;;
		\"*\")
			v="${alt:1:${#alt}-2}"
			case "${v}" in *[\"\\[:cntrl:]]*) return 1 ;; esac
			v="s${v}"
			;;
		*)
			case "${alt#-}" in '' | 0* | *[!0-9]*) return 1 ;; esac
			[ "${#alt}" -le 15 ] || return 1
			v="j${alt}"
			;;
		esac
	fi
	printf '%s' "${v:1}"
}

# mcp_args_get FILTER: prints `jq -rc FILTER` of the arguments.
mcp_args_get() {
	__mcp_sdk_arg "${1:-.}" && return 0
	__mcp_sdk_payload MCP_TOOL_ARGS_JSON MCP_TOOL_ARGS_FILE
	__mcp_sdk_query mcp_args_get "${__mcp_sdk_r}" "${1:-.}"
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

# ---------------------------------------------------------------- results

# __mcp_sdk_success DATA MAX: sets __mcp_sdk_sc to {"success":true,
# "result":DATA} and __mcp_sdk_text to the text content for it (a JSON
# string literal): the envelope itself, or a summary when it is longer than
# MAX bytes. Returns 1 if DATA is not one JSON value.
__mcp_sdk_success() {
	local data="$1" max="$2" size
	# jq for large data only: starting jq 1.6 costs ~18 ms of CPU, as much as
	# checking some 2,000 characters in bash (which slows down faster than
	# linearly). Data that surely fits under max (4 bytes a character at
	# most, plus the envelope) takes the bash way, whose text is then the
	# same as jq's.
	if [ -n "${__mcp_sdk_jq}" ] && { [ "${#data}" -gt 2048 ] || [ $((${#data} * 4 + 32)) -gt "${max}" ]; }; then
		__mcp_sdk_success_jq "${data}" "${max}"
		return
	fi
	local rc=0
	__mcp_sdk_flat "${data}" || __mcp_sdk_scan "${data}" || rc=$?
	[ "${rc}" = 0 ] || [ "${rc}" = 2 ] || return 1
	__mcp_sdk_oneline "${data}"
	__mcp_sdk_sc="{\"success\":true,\"result\":${__mcp_sdk_r}}"
	size=0 # with jq, the test above made sure it fits
	if [ -z "${__mcp_sdk_jq}" ]; then
		__mcp_sdk_bytes "${__mcp_sdk_sc}"
		size="${__mcp_sdk_r}"
	fi
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

# ---------------------------------------------------------------- cancellation

# mcp_is_cancelled: 0 iff the call was cancelled or timed out.
mcp_is_cancelled() {
	[ -n "${MCP_TOOL_CANCELLATION_FILE}" ] && [ -e "${MCP_TOOL_CANCELLATION_FILE}" ]
}

# ---------------------------------------------------------------- logging

# mcp_log_debug|info|warn|error LOGGER MESSAGE: a log whose data is MESSAGE.
mcp_log_debug() { __mcp_sdk_log_text debug "$@"; }
mcp_log_info() { __mcp_sdk_log_text info "$@"; }
mcp_log_warn() { __mcp_sdk_log_text warning "$@"; }
mcp_log_error() { __mcp_sdk_log_text error "$@"; }

# ---------------------------------------------------------------- the client

# The client channel (documented in tool-sdk-more.sh): elicitation,
# sampling and the client's roots.
mcp_input_request() { __mcp_sdk_more mcp_input_request "$@"; }
mcp_input_response() { __mcp_sdk_more mcp_input_response "$@"; }
mcp_elicit() { __mcp_sdk_more mcp_elicit "$@"; }
mcp_elicit_url() { __mcp_sdk_more mcp_elicit_url "$@"; }
mcp_elicit_string() { __mcp_sdk_more mcp_elicit_string "$@"; }
mcp_elicit_confirm() { __mcp_sdk_more mcp_elicit_confirm "$@"; }
mcp_elicit_choice() { __mcp_sdk_more mcp_elicit_choice "$@"; }
mcp_elicit_titled_choice() { __mcp_sdk_more mcp_elicit_titled_choice "$@"; }
mcp_elicit_multi_choice() { __mcp_sdk_more mcp_elicit_multi_choice "$@"; }
mcp_elicit_titled_multi_choice() { __mcp_sdk_more mcp_elicit_titled_multi_choice "$@"; }
mcp_sample() { __mcp_sdk_more mcp_sample "$@"; }
mcp_sample_text() { __mcp_sdk_more mcp_sample_text "$@"; }
mcp_client_roots() { __mcp_sdk_more mcp_client_roots "$@"; }
mcp_require_capability() { __mcp_sdk_more mcp_require_capability "$@"; }

# ---------------------------------------------------------------- host-less

# Boris has no MCP Apps UI: the framework's UI helpers exist so that a
# project calling them gets a clear answer.

# mcp_client_supports_ui, mcp_client_supports_extension: return 1.
mcp_client_supports_ui() { return 1; }
mcp_client_supports_extension() { return 1; }

# mcp_result_with_ui_data URI TEXT DATA: mcp_result_with_ui.
mcp_result_with_ui_data() { mcp_result_with_ui "$@"; }

# mcp_ui_form, mcp_ui_table, mcp_tool_meta_with_ui: return 1 with a message.
mcp_ui_form() { __mcp_sdk_no_ui mcp_ui_form; }
mcp_ui_table() { __mcp_sdk_no_ui mcp_ui_table; }
mcp_tool_meta_with_ui() { __mcp_sdk_no_ui mcp_tool_meta_with_ui; }
