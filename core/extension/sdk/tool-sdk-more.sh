# shellcheck shell=bash
# tool-sdk-more.sh: the helpers of Boris's shell SDK for extension tools
# that are off the common path (errors, mcp_fail, progress, logging, roots,
# resources, truncation, retries, configuration, the JSON parser in bash).
# tool-sdk.sh loads this file the first time a tool calls one of them (a
# tool need not source it); it relies on tool-sdk.sh's internals and
# variables.

# ---------------------------------------------------------------- JSON in bash

# __mcp_sdk_scan JSON [KEY]: returns 0 iff JSON is exactly one JSON value
# (2 if it is too large to check here). Sets __mcp_sdk_type to the value's
# kind (object array string number true false null); with KEY and an object,
# sets __mcp_sdk_found=1 and __mcp_sdk_r to that member's value, compacted
# (the last such member, as jq does). grep splits the tokens in one pass;
# bash checks each token and the grammar.
__mcp_sdk_scan() {
	local LC_ALL=C
	local want="" state=V stack="" tok c top pending=0 active=0 cap="" kind
	local re_str='^"([^"\\'$'\001''-'$'\037'']|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*"$'
	local re_num='^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
	__mcp_sdk_found=0
	__mcp_sdk_type=""
	__mcp_sdk_r=""
	if [ "${#1}" -gt "${__mcp_sdk_scan_max}" ]; then
		return 2
	fi
	if [ -n "${2-}" ]; then
		__mcp_sdk_esc "$2"
		want="${__mcp_sdk_r}"
		__mcp_sdk_r=""
	fi
	__mcp_sdk_tokens "$1"
	while IFS= read -r tok; do
		c="${tok:0:1}"
		kind=""
		case "${state}" in
		END) return 1 ;;
		V | VA)
			if [ "${state}" = VA ] && [ "${tok}" = "]" ]; then
				stack="${stack%?}"
				kind=close
			else
				if [ "${pending}" = 1 ]; then
					pending=0
					active=1
					cap=""
				fi
				case "${c}" in
				"{")
					stack="${stack}o"
					state=KO
					kind=object
					;;
				"[")
					stack="${stack}a"
					state=VA
					kind=array
					;;
				'"')
					[[ ${tok} =~ ${re_str} ]] || return 1
					kind=string
					;;
				t | f | n)
					case "${tok}" in true | false | null) kind="${tok}" ;; *) return 1 ;; esac
					;;
				- | [0-9])
					[[ ${tok} =~ ${re_num} ]] || return 1
					kind=number
					;;
				*) return 1 ;;
				esac
				[ -n "${__mcp_sdk_type}" ] || __mcp_sdk_type="${kind}"
			fi
			;;
		KO | K)
			if [ "${state}" = KO ] && [ "${tok}" = "}" ]; then
				stack="${stack%?}"
				kind=close
			else
				[ "${c}" = '"' ] && [[ ${tok} =~ ${re_str} ]] || return 1
				if [ -n "${want}" ] && [ "${#stack}" = 1 ] && [ "${tok}" = "${want}" ]; then
					pending=1
				fi
				state=C
			fi
			;;
		C)
			[ "${tok}" = ":" ] || return 1
			state=V
			;;
		A)
			top="${stack:${#stack}-1}"
			case "${tok}${top}" in
			,o) state=K ;;
			,a) state=V ;;
			"}o" | "]a")
				stack="${stack%?}"
				kind=close
				;;
			*) return 1 ;;
			esac
			;;
		esac
		[ "${active}" = 0 ] || cap="${cap}${tok}"
		case "${kind}" in
		object | array | "") continue ;;
		esac
		# A value just ended.
		if [ "${active}" = 1 ] && [ "${#stack}" = 1 ]; then
			active=0
			__mcp_sdk_r="${cap}"
			__mcp_sdk_found=1
		fi
		if [ -z "${stack}" ]; then
			state=END
		else
			state=A
		fi
	done <<EOF
${__mcp_sdk_toks}
EOF
	[ "${state}" = END ]
}

# __mcp_sdk_tokens JSON: sets __mcp_sdk_toks to JSON's tokens, one a
# line. Small input is split in bash (no process to start); large input by
# grep, which is faster per byte. Both skip JSON's whitespace (space, tab,
# CR, LF) only: any other character is at least a token of its own, which
# __mcp_sdk_scan then refuses.
__mcp_sdk_tokens() {
	local LC_ALL=C
	local ws=$' \t\r\n' tok
	__mcp_sdk_toks=""
	# grep reads lines: a line feed can be neither in its pattern nor in a match.
	[ "${#1}" -le 4096 ] || ws=$' \t\r'
	tok='"([^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[a-z]+|[][{}:,]|[^][{}:,"'"${ws}"'a-z0-9-]+|[^'"${ws}"']'
	if [ "${#1}" -gt 4096 ]; then
		__mcp_sdk_toks="$(printf '%s' "$1" | grep -oE "${tok}")"
		return 0
	fi
	local rest="$1" re="^[${ws}]*(${tok})"
	while [ -n "${rest}" ]; do
		if [[ ${rest} =~ ${re} ]]; then
			__mcp_sdk_toks+="${BASH_REMATCH[1]}"$'\n'
			rest="${rest:${#BASH_REMATCH[0]}}"
		else
			break # only whitespace is left
		fi
	done
	__mcp_sdk_toks="${__mcp_sdk_toks%$'\n'}"
}

# __mcp_sdk_utf8 CODEPOINT: appends its UTF-8 bytes to __mcp_sdk_u.
__mcp_sdk_utf8() {
	local cp="$1" o b
	if [ "${cp}" -eq 0 ]; then
		return 0 # a NUL cannot live in a bash string
	elif [ "${cp}" -lt 128 ]; then
		printf -v o '\\%03o' "${cp}"
	elif [ "${cp}" -lt 2048 ]; then
		printf -v o '\\%03o\\%03o' $((192 | (cp >> 6))) $((128 | (cp & 63)))
	elif [ "${cp}" -lt 65536 ]; then
		printf -v o '\\%03o\\%03o\\%03o' $((224 | (cp >> 12))) $((128 | ((cp >> 6) & 63))) $((128 | (cp & 63)))
	else
		printf -v o '\\%03o\\%03o\\%03o\\%03o' $((240 | (cp >> 18))) $((128 | ((cp >> 12) & 63))) \
			$((128 | ((cp >> 6) & 63))) $((128 | (cp & 63)))
	fi
	printf -v b "${o}"
	__mcp_sdk_u="${__mcp_sdk_u}${b}"
}

# __mcp_sdk_unescape LITERAL: sets __mcp_sdk_r to the string a JSON string
# literal (quotes included) denotes.
__mcp_sdk_unescape() {
	local LC_ALL=C
	local s="${1:1:${#1}-2}" c hex cp lo
	__mcp_sdk_u=""
	while :; do
		case "${s}" in
		*\\*) ;;
		*) break ;;
		esac
		__mcp_sdk_u="${__mcp_sdk_u}${s%%\\*}"
		s="${s#*\\}"
		c="${s:0:1}"
		s="${s:1}"
		case "${c}" in
		n) __mcp_sdk_u="${__mcp_sdk_u}"$'\n' ;;
		t) __mcp_sdk_u="${__mcp_sdk_u}"$'\t' ;;
		r) __mcp_sdk_u="${__mcp_sdk_u}"$'\r' ;;
		b) __mcp_sdk_u="${__mcp_sdk_u}"$'\b' ;;
		f) __mcp_sdk_u="${__mcp_sdk_u}"$'\f' ;;
		u)
			hex="${s:0:4}"
			s="${s:4}"
			cp=$((16#${hex}))
			if [ "${cp}" -ge 55296 ] && [ "${cp}" -le 56319 ] && [ "${s:0:2}" = '\u' ]; then
				lo=$((16#${s:2:4}))
				if [ "${lo}" -ge 56320 ] && [ "${lo}" -le 57343 ]; then
					cp=$((65536 + ((cp - 55296) << 10) + (lo - 56320)))
					s="${s:6}"
				fi
			fi
			__mcp_sdk_utf8 "${cp}"
			;;
		*) __mcp_sdk_u="${__mcp_sdk_u}${c}" ;;
		esac
	done
	__mcp_sdk_r="${__mcp_sdk_u}${s}"
}

# __mcp_sdk_query_min WHO JSON FILTER: __mcp_sdk_query without jq: FILTER
# may be ".", a path of plain keys (".a.b") and an optional "// ALTERNATIVE"
# (a JSON literal or empty); other filters fail.
__mcp_sdk_query_min() {
	local who="$1" json="$2" filter="$3" path alt="" key v
	local re='^[[:space:]]*(\.|(\.[A-Za-z_][A-Za-z0-9_]*)+)[[:space:]]*(//[[:space:]]*(.*[^[:space:]]))?[[:space:]]*$'
	if ! [[ ${filter} =~ ${re} ]]; then
		mcp_fail -32603 "${who}: the filter '${filter}' needs jq, and this host runs tools without it (MCPBASH_JSON_TOOL=none); install jq, or read the arguments with mcp_args_raw"
	fi
	path="${BASH_REMATCH[1]}"
	[ -z "${BASH_REMATCH[3]}" ] || alt="${BASH_REMATCH[4]}"
	if [ -n "${alt}" ] && [ "${alt}" != empty ] && ! __mcp_sdk_scan "${alt}"; then
		mcp_fail -32603 "${who}: the alternative in '${filter}' needs jq (only a JSON literal or empty works without it)"
	fi
	v="${json}"
	if ! __mcp_sdk_scan "${v}"; then
		mcp_fail -32603 "${who}: the JSON is not valid or too large to read without jq"
	fi
	if [ "${path}" != "." ]; then
		path="${path#.}."
		while [ -n "${path}" ]; do
			key="${path%%.*}"
			path="${path#*.}"
			if [ "${__mcp_sdk_type}" != object ]; then
				if [ "${__mcp_sdk_type}" = null ]; then
					v=null
					break
				fi
				__mcp_sdk_warn "${who}: cannot index ${__mcp_sdk_type} with \"${key}\""
				return 5
			fi
			__mcp_sdk_scan "${v}" "${key}" || true
			if [ "${__mcp_sdk_found}" = 1 ]; then
				v="${__mcp_sdk_r}"
			else
				v=null
			fi
			__mcp_sdk_scan "${v}" || true
		done
	fi
	__mcp_sdk_scan "${v}" || true
	if [ -n "${alt}" ] && { [ "${__mcp_sdk_type}" = null ] || [ "${__mcp_sdk_type}" = false ]; }; then
		[ "${alt}" != empty ] || return 0
		v="${alt}"
		__mcp_sdk_scan "${v}" || true
	fi
	if [ "${__mcp_sdk_type}" = string ]; then
		__mcp_sdk_unescape "${v}"
		v="${__mcp_sdk_r}"
	else
		__mcp_sdk_oneline "${v}"
		v="${__mcp_sdk_r}"
	fi
	printf '%s' "${v}"
}

# __mcp_sdk_error_obj_min ERROR: __mcp_sdk_error_obj without jq; ERROR is
# not empty.
__mcp_sdk_error_obj_min() {
	local e="$1" body msg="" hint=""
	if __mcp_sdk_scan "${e}" && [ "${__mcp_sdk_type}" = object ]; then
		__mcp_sdk_oneline "${e}"
		body="${__mcp_sdk_r}"
		body="${body#"${body%%[![:space:]]*}"}"
		body="${body#\{}"
		if [[ ${body} =~ ^[[:space:]]*\}[[:space:]]*$ ]]; then
			body="}"
		fi
		__mcp_sdk_scan "${e}" message || true
		if [ "${__mcp_sdk_found}" = 0 ]; then
			body="\"message\":\"Unknown error\",${body}"
			msg="Unknown error"
		else
			__mcp_sdk_oneline "${__mcp_sdk_r}"
			msg="${__mcp_sdk_r}"
			[ "${msg:0:1}" != '"' ] || {
				__mcp_sdk_unescape "${msg}"
				msg="${__mcp_sdk_r}"
			}
		fi
		__mcp_sdk_scan "${e}" type || true
		[ "${__mcp_sdk_found}" = 1 ] || body="\"type\":\"internal_error\",${body}"
		if [ "${body}" != "${body%,\}}" ]; then
			body="${body%,\}}}"
		fi
		__mcp_sdk_scan "${e}" hint || true
		if [ "${__mcp_sdk_found}" = 1 ] && [ "${__mcp_sdk_r:0:1}" = '"' ]; then
			__mcp_sdk_unescape "${__mcp_sdk_r}"
			hint="${__mcp_sdk_r}"
		fi
		__mcp_sdk_err="{${body}"
	else
		msg="${e}"
		__mcp_sdk_esc "${e}"
		__mcp_sdk_err="{\"type\":\"internal_error\",\"message\":${__mcp_sdk_r}}"
	fi
	[ -z "${hint}" ] || msg="${msg}"$'\n'"Hint: ${hint}"
	__mcp_sdk_esc "${msg}"
	__mcp_sdk_text="${__mcp_sdk_r}"
}

# ---------------------------------------------------------------- roots

# The roots a tool may use: MCP_ROOTS_PATHS (one a line) when the host sets
# it, else MCPBASH_ROOTS (colon-separated), else the extension directory.
__mcp_sdk_roots() {
	if [ -n "${MCP_ROOTS_PATHS:-}" ]; then
		printf '%s\n' "${MCP_ROOTS_PATHS}"
	elif [ -n "${MCPBASH_ROOTS:-}" ]; then
		printf '%s\n' "${MCPBASH_ROOTS}" | tr ':' '\n'
	elif [ -n "${MCPBASH_PROJECT_ROOT:-}" ]; then
		printf '%s\n' "${MCPBASH_PROJECT_ROOT}"
	fi
}

# mcp_path_normalize [--physical] PATH: prints PATH absolute and clean.
mcp_path_normalize() {
	[ "${1-}" != --physical ] || shift
	local p="${1-}"
	[ "${p#/}" != "${p}" ] || p="${PWD}/${p}"
	if command -v realpath >/dev/null 2>&1 && realpath -m / >/dev/null 2>&1; then
		realpath -m -- "${p}"
		return
	fi
	local out="" part rest="${p}/"
	while [ -n "${rest}" ]; do
		part="${rest%%/*}"
		rest="${rest#*/}"
		case "${part}" in
		'' | .) ;;
		..) out="${out%/*}" ;;
		*) out="${out}/${part}" ;;
		esac
	done
	printf '%s\n' "${out:-/}"
}

# mcp_roots_list: prints the roots, one a line.
mcp_roots_list() {
	__mcp_sdk_roots | sed '/^$/d'
}

# mcp_roots_count: prints how many roots there are.
mcp_roots_count() {
	local n
	n="$(mcp_roots_list | wc -l)"
	printf '%s' "${n//[!0-9]/}"
}

# mcp_roots_contains PATH: 0 iff PATH is a root or inside one.
mcp_roots_contains() {
	local p root
	p="$(mcp_path_normalize "${1-}")"
	while IFS= read -r root; do
		[ -n "${root}" ] || continue
		root="$(mcp_path_normalize "${root}")"
		if [ "${root}" = / ] || [ "${p}" = "${root}" ] || [ "${p:0:$((${#root} + 1))}" = "${root}/" ]; then
			return 0
		fi
	done <<EOF
$(mcp_roots_list)
EOF
	return 1
}

# mcp_require_path FILTER [--default-to-single-root] [--allow-empty]: prints
# the argument as an absolute path, failing with -32602 when it is missing or
# outside the roots.
mcp_require_path() {
	local filter="${1-}" single="" empty="" v
	shift || true
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--default-to-single-root) single=1 ;;
		--allow-empty) empty=1 ;;
		esac
		shift
	done
	[ -n "${filter}" ] || mcp_fail_invalid_args "mcp_require_path: a filter is required"
	v="$(mcp_args_get "${filter}")" || exit 1
	[ "${v}" != null ] || v=""
	if [ -z "${v}" ] && [ -n "${single}" ]; then
		if [ "$(mcp_roots_count)" = 1 ]; then
			v="$(mcp_roots_list)"
		else
			mcp_fail_invalid_args "${filter} is required when there is not exactly one root"
		fi
	fi
	if [ -z "${v}" ]; then
		[ -n "${empty}" ] || mcp_fail_invalid_args "${filter} is required"
		return 0
	fi
	v="$(mcp_path_normalize "${v}")"
	if [ "$(mcp_roots_count)" != 0 ] && ! mcp_roots_contains "${v}"; then
		mcp_fail_invalid_args "${filter} is outside the allowed roots"
	fi
	printf '%s' "${v}"
}

# mcp_result_text_with_resource DATA [--path FILE [--mime TYPE] [--uri URI]]...:
# prints a CallToolResult whose content holds DATA (as mcp_result_success
# does when DATA is JSON, else as text) followed by each readable FILE as an
# embedded resource: text for text types, base64 blob otherwise.
mcp_result_text_with_resource() {
	local data="${1-}" content sc="" paths=() mimes=() uris=() i n
	shift || true
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--path)
			paths[${#paths[@]}]="${2-}"
			mimes[${#mimes[@]}]=""
			uris[${#uris[@]}]=""
			;;
		--mime) [ "${#paths[@]}" = 0 ] || mimes[${#paths[@]} - 1]="${2-}" ;;
		--uri) [ "${#paths[@]}" = 0 ] || uris[${#paths[@]} - 1]="${2-}" ;;
		esac
		shift 2 || shift $#
	done
	if __mcp_sdk_success "${data}" "$(__mcp_sdk_uint "${MCPBASH_MAX_TEXT_BYTES:-}" 102400)"; then
		sc=",\"structuredContent\":${__mcp_sdk_sc}"
		content="{\"type\":\"text\",\"text\":${__mcp_sdk_text}}"
	else
		__mcp_sdk_esc "${data}"
		content="{\"type\":\"text\",\"text\":${__mcp_sdk_r}}"
	fi
	i=0
	n=${#paths[@]}
	while [ "${i}" -lt "${n}" ]; do
		__mcp_sdk_resource "${paths[${i}]}" "${mimes[${i}]}" "${uris[${i}]}" &&
			content="${content},${__mcp_sdk_r}"
		i=$((i + 1))
	done
	__mcp_sdk_once mcp_result_text_with_resource || return 0
	printf '{"content":[%s]%s,"isError":false}\n' "${content}" "${sc}"
}

# __mcp_sdk_resource FILE MIME URI: sets __mcp_sdk_r to an embedded resource
# content item for FILE.
__mcp_sdk_resource() {
	local path="$1" mime="$2" uri="$3" body item
	if [ ! -f "${path}" ] || [ ! -r "${path}" ]; then
		mcp_log_warn sdk "mcp_result_text_with_resource: ${path} is not a readable file; skipped"
		return 1
	fi
	if [ -z "${mime}" ]; then
		mime="$(file --brief --mime-type -- "${path}" 2>/dev/null)" || mime=""
		[ -n "${mime}" ] || mime=application/octet-stream
	fi
	if [ -z "${uri}" ]; then
		uri="file://$(mcp_path_normalize "${path}")"
	fi
	__mcp_sdk_esc "${uri}"
	item="{\"uri\":${__mcp_sdk_r}"
	__mcp_sdk_esc "${mime}"
	item="${item},\"mimeType\":${__mcp_sdk_r}"
	case "${mime}" in
	text/* | application/json | application/xml | application/javascript | *+json | *+xml)
		body="$(cat -- "${path}" && printf x)"
		__mcp_sdk_esc "${body%x}"
		item="${item},\"text\":${__mcp_sdk_r}}"
		;;
	*)
		body="$(base64 <"${path}" | tr -d '\n')"
		item="${item},\"blob\":\"${body}\"}"
		;;
	esac
	__mcp_sdk_r="{\"type\":\"resource\",\"resource\":${item}}"
}

# mcp_json_truncate JSON [MAX_BYTES] [--array-path .a.b]: prints
# {"result":...,"truncated":bool,"kept":N,"total":M} with the array cut so
# that the result fits in MAX_BYTES (102400 by default); errors come back as
# {"result":null,"truncated":false,"error":{"type":...,"message":...}}.
mcp_json_truncate() {
	local json="" max="" path="" n=0
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--array-path)
			path="${2-}"
			shift 2 || shift $#
			continue
			;;
		esac
		case "${n}" in
		0) json="$1" ;;
		1) max="$1" ;;
		esac
		n=$((n + 1))
		shift
	done
	max="$(__mcp_sdk_uint "${max}" 102400)"
	if [ -n "${path}" ] && ! [[ ${path} =~ ^(\.[A-Za-z_][A-Za-z0-9_]*)+$ ]]; then
		__mcp_sdk_esc "Invalid path syntax: ${path} (use .key or .key.nested)"
		printf '{"result":null,"truncated":false,"error":{"type":"invalid_path_syntax","message":%s}}' "${__mcp_sdk_r}"
		return 0
	fi
	if ! __mcp_sdk_is_json "${json}"; then
		__mcp_sdk_esc "${json}"
		printf '{"result":null,"truncated":false,"error":{"type":"invalid_json","message":"Input is not one JSON value","raw":%s}}' "${__mcp_sdk_r}"
		return 0
	fi
	if [ -z "${__mcp_sdk_jq}" ]; then
		__mcp_sdk_oneline "${json}"
		printf '{"result":%s,"truncated":false,"_warning":"truncation needs jq"}' "${__mcp_sdk_r}"
		return 0
	fi
	printf '%s' "${json}" | "${__mcp_sdk_jq}" -c --argjson max "${max}" --arg path "${path}" '
		def bytes: tojson | utf8bytelength;
		def fail($t; $m): {result: null, truncated: false, error: {type: $t, message: $m}};
		. as $doc
		| (if $path != "" then ($path | ltrimstr(".") | split("."))
		   elif type == "array" then []
		   elif type == "object" and (.results | type) == "array" then ["results"]
		   else null end) as $p
		| if $p == null then
		    (if bytes <= $max then {result: ., truncated: false}
		     else fail("output_too_large"; "Response too large (\(bytes) bytes) and not an array to truncate") end)
		  elif ($doc | getpath($p)) == null then fail("path_not_found"; "Path not found: \($path)")
		  elif ($doc | getpath($p) | type) != "array" then fail("invalid_array_path"; "Path is not an array: \($path)")
		  else ($doc | getpath($p) | length) as $total
		    | if bytes <= $max then {result: ., truncated: false, kept: $total, total: $total}
		      elif ($doc | setpath($p; []) | bytes) > $max then
		        fail("output_too_large"; "Response too large even with an empty array at \($path)")
		      else [0, $total]
		        | until(.[0] >= .[1];
		            (((.[0] + .[1] + 1) / 2) | floor) as $m
		            | if ($doc | setpath($p; getpath($p)[:$m]) | bytes) <= $max then [$m, .[1]] else [.[0], $m - 1] end)
		        | .[0] as $k
		        | {result: ($doc | setpath($p; getpath($p)[:$k])), truncated: true, kept: $k, total: $total}
		      end
		  end'
}

# mcp_extract_cli_error STDOUT STDERR EXIT_CODE: prints the best error
# message: from JSON on stdout (.error.message, .error, .message of a failed
# response, .errors[0].message), else stderr, else "CLI exited with code N".
mcp_extract_cli_error() {
	local out="${1-}" err="${2-}" code="${3-}" msg=""
	if [ -n "${__mcp_sdk_jq}" ] && [ -n "${out}" ]; then
		msg="$(printf '%s' "${out}" | "${__mcp_sdk_jq}" -r '
			first((.error | objects | .message | strings),
			      (.error | strings),
			      (select(.success == false or .ok == false or .status == "error") | .message | strings),
			      ((.errors // [])[0]? | .message | strings)) // empty' 2>/dev/null)" || msg=""
	fi
	if [ -n "${msg}" ]; then
		printf '%s' "${msg}"
	elif [ -n "${err}" ]; then
		printf '%s' "${err}"
	else
		printf 'CLI exited with code %s' "${code}"
	fi
}

# mcp_run_with_progress --pattern REGEX [--extract json|match1|ratio]
#   [--total N] [--stdout FILE] [--stderr-file FILE] [--progress-file FILE]
#   [--interval SECS] [--quiet] [--dry-run] -- COMMAND...
# Runs COMMAND, turning the lines of its stderr (or of --progress-file) that
# match REGEX into mcp_progress; returns COMMAND's status.
mcp_run_with_progress() {
	local pattern="" extract=json total="" out="" errf="" pfile="" interval=0.2 quiet="" dry=""
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--pattern) pattern="${2-}" ;;
		--extract) extract="${2-}" ;;
		--total) total="${2-}" ;;
		--stdout) out="${2-}" ;;
		--stderr-file) errf="${2-}" ;;
		--progress-file) pfile="${2-}" ;;
		--interval) interval="${2-}" ;;
		--quiet) quiet=1 && shift && continue ;;
		--dry-run) dry=1 && shift && continue ;;
		--)
			shift
			break
			;;
		*) break ;;
		esac
		shift 2 || shift $#
	done
	if [ -z "${pattern}" ] || [ "$#" = 0 ]; then
		__mcp_sdk_warn "mcp_run_with_progress: --pattern and a command are required"
		return 2
	fi
	local dir rc=0 pid line seen=0
	dir="$(mktemp -d "${TMPDIR:-/tmp}/mcp-progress.XXXXXX")" || return 1
	if [ -n "${pfile}" ]; then
		: >"${pfile}"
		if [ -n "${out}" ]; then "$@" >"${out}" & else "$@" & fi
		pid=$!
		while kill -0 "${pid}" 2>/dev/null; do
			seen="$(__mcp_sdk_progress_file "${pfile}" "${seen}")"
			sleep "${interval}"
		done
		wait "${pid}" || rc=$?
		__mcp_sdk_progress_file "${pfile}" "${seen}" final >/dev/null
	else
		mkfifo "${dir}/err"
		if [ -n "${out}" ]; then "$@" 2>"${dir}/err" >"${out}" & else "$@" 2>"${dir}/err" & fi
		pid=$!
		while IFS= read -r line || [ -n "${line}" ]; do
			__mcp_sdk_progress_line "${line}"
		done < <(tr '\r' '\n' <"${dir}/err")
		wait "${pid}" || rc=$?
	fi
	rm -rf "${dir}"
	return "${rc}"
}

# __mcp_sdk_progress_file FILE SEEN [final]: handles the complete lines of
# FILE after byte SEEN (all of them when final); prints the new SEEN.
__mcp_sdk_progress_file() {
	local chunk line LC_ALL=C
	chunk="$(tail -c +$(($2 + 1)) "$1" 2>/dev/null && printf x)"
	chunk="${chunk%x}"
	[ -n "${3-}" ] || chunk="${chunk%"${chunk##*$'\n'}"}"
	while IFS= read -r line || [ -n "${line}" ]; do
		__mcp_sdk_progress_line "${line}"
	done <<EOF
${chunk%$'\n'}
EOF
	printf '%s' $(($2 + ${#chunk}))
}

# __mcp_sdk_progress_line LINE: one line of mcp_run_with_progress's input
# (its variables are in scope).
__mcp_sdk_progress_line() {
	local line="$1" pct="" msg="" a b
	[ -n "${line}" ] || return 0
	if ! [[ ${line} =~ ${pattern} ]]; then
		if [ -n "${errf}" ]; then
			printf '%s\n' "${line}" >>"${errf}"
		elif [ -z "${pfile}" ]; then
			printf '%s\n' "${line}" >&2
		fi
		[ -n "${quiet}" ] || mcp_log_debug progress "${line}"
		return 0
	fi
	a="${BASH_REMATCH[1]-}"
	b="${BASH_REMATCH[2]-}"
	case "${extract}" in
	match1) pct="${a%%.*}" ;;
	ratio)
		case "${a%%.*}${b%%.*}" in '' | *[!0-9]*) ;; *)
			[ "${b%%.*}" = 0 ] || pct=$((10#${a%%.*} * 100 / 10#${b%%.*}))
			;;
		esac
		;;
	*)
		pct="$(__mcp_sdk_query mcp_run_with_progress "${line}" '.progress // empty' 2>/dev/null)" || pct=""
		msg="$(__mcp_sdk_query mcp_run_with_progress "${line}" '.message // empty' 2>/dev/null)" || msg=""
		pct="${pct%%.*}"
		;;
	esac
	case "${pct}" in '' | *[!0-9]*) return 0 ;; esac
	if [ -n "${total}" ] && [ "${extract}" = match1 ]; then
		case "${total}" in '' | *[!0-9]* | 0) ;; *) pct=$((10#${pct} * 100 / total)) ;; esac
	fi
	[ -n "${msg}" ] || msg="${line}"
	if [ -n "${dry}" ]; then
		__mcp_sdk_esc "${msg}"
		printf '{"progress":%s,"message":%s}\n' "$((10#${pct}))" "${__mcp_sdk_r}" >&2
	else
		mcp_progress "${pct}" "${msg}"
	fi
}

# ---------------------------------------------------------------- retries and debugging

# mcp_debug MESSAGE...: appends a timestamped line to MCPBASH_DEBUG_LOG when
# it is set; otherwise does nothing.
mcp_debug() {
	[ -n "${MCPBASH_DEBUG_LOG:-}" ] || return 0
	printf '[%s] %s\n' "$(date +%H:%M:%S 2>/dev/null || printf '??:??:??')" "$*" \
		>>"${MCPBASH_DEBUG_LOG}" 2>/dev/null || true
}

# mcp_with_retry MAX_ATTEMPTS BASE_DELAY [--] COMMAND...: runs COMMAND until it
# succeeds, exits 1 or 2 (not retried), MAX_ATTEMPTS is reached or the call is
# cancelled; waits BASE_DELAY seconds, doubling, plus up to half again of
# jitter, between attempts. Returns COMMAND's last status.
mcp_with_retry() {
	local max="${1-}" base="${2-}" attempt=1 rc ms whole frac
	shift 2 || shift $#
	[ "${1-}" != -- ] || shift
	if ! [[ ${max} =~ ^[0-9]+$ ]] || [ "${max}" -lt 1 ]; then
		__mcp_sdk_warn "mcp_with_retry: MAX_ATTEMPTS must be a positive integer"
		return 1
	fi
	if ! [[ ${base} =~ ^([0-9]*)(\.([0-9]*))?$ ]] || [ -z "${base}" ] || [ "${base}" = . ]; then
		__mcp_sdk_warn "mcp_with_retry: BASE_DELAY must be a number of seconds"
		return 1
	fi
	whole="${BASH_REMATCH[1]:-0}"
	frac="${BASH_REMATCH[3]}000"
	ms=$((10#${whole} * 1000 + 10#${frac:0:3}))
	while :; do
		rc=0
		"$@" || rc=$?
		if [ "${rc}" -le 2 ] || [ "${attempt}" -ge "${max}" ] || mcp_is_cancelled; then
			return "${rc}"
		fi
		whole=$((ms + (ms > 1 ? RANDOM % (ms / 2 + 1) : 0)))
		mcp_log_debug retry "attempt ${attempt}/${max} failed with status ${rc}; retrying in ${whole} ms"
		sleep "$((whole / 1000)).$(printf '%03d' $((whole % 1000)))"
		ms=$((ms * 2))
		attempt=$((attempt + 1))
	done
}

# ---------------------------------------------------------------- config

# mcp_config_load [--env NAME] [--file FILE] [--example FILE] [--defaults JSON]:
# sets and exports MCP_CONFIG_JSON from the defaults, the example file, the
# file and the variable NAME (JSON, or a file's path), later ones overriding
# earlier ones key by key. Missing
# files are skipped; invalid JSON is skipped with a warning.
mcp_config_load() {
	local env="" file="" example="" defaults="" merged="{}" src v
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--env) env="${2-}" ;;
		--file) file="${2-}" ;;
		--example) example="${2-}" ;;
		--defaults) defaults="${2-}" ;;
		esac
		shift 2 || shift $#
	done
	for src in defaults example file env; do
		v=""
		case "${src}" in
		defaults) v="${defaults}" ;;
		example) [ -z "${example}" ] || [ ! -r "${example}" ] || v="$(cat "${example}")" ;;
		file) [ -z "${file}" ] || [ ! -r "${file}" ] || v="$(cat "${file}")" ;;
		env)
			[ -z "${env}" ] || eval "v=\"\${${env}:-}\""
			case "${v}" in
			'' | [[:space:]]*\{* | \{*) ;;
			*) if [ -r "${v}" ]; then v="$(cat "${v}")"; else v=""; fi ;;
			esac
			;;
		esac
		[ -n "${v}" ] || continue
		if ! __mcp_sdk_is_json "${v}"; then
			__mcp_sdk_warn "mcp_config_load: the ${src} configuration is not valid JSON; skipped"
			continue
		fi
		if [ -n "${__mcp_sdk_jq}" ]; then
			merged="$(printf '%s\n%s' "${merged}" "${v}" | "${__mcp_sdk_jq}" -c -s '.[0] + (.[1] | objects)')"
		else
			# Members written later win, for jq and for JSON parsers alike.
			__mcp_sdk_oneline "${v}"
			v="${__mcp_sdk_r}"
			v="${v#"${v%%[![:space:]]*}"}"
			v="${v%"${v##*[![:space:]]}"}"
			case "${v}" in
			\{*\}) ;;
			*) continue ;;
			esac
			v="${v#\{}"
			v="${v%\}}"
			if [ "${merged}" = "{}" ]; then
				merged="{${v}}"
			elif [[ ${v} =~ [^[:space:]] ]]; then
				merged="${merged%\}},${v}}"
			fi
		fi
	done
	MCP_CONFIG_JSON="${merged}"
	export MCP_CONFIG_JSON
}

# mcp_config_get FILTER [--default VALUE]: prints the value FILTER selects in
# MCP_CONFIG_JSON; a missing or null value prints VALUE, or returns 1.
mcp_config_get() {
	local filter="${1:-.}" def="" has="" v
	shift || true
	if [ "${1-}" = --default ]; then
		has=1
		def="${2-}"
	fi
	v="${MCP_CONFIG_JSON:-}"
	[ -n "${v}" ] || v="{}"
	v="$(__mcp_sdk_query mcp_config_get "${v}" "${filter}")" || v=""
	if [ -z "${v}" ] || [ "${v}" = null ]; then
		if [ -n "${has}" ]; then
			printf '%s' "${def}"
			return 0
		fi
		__mcp_sdk_warn "mcp_config_get: ${filter} is not set"
		return 1
	fi
	printf '%s' "${v}"
}

# ---------------------------------------------------------------- host-less

# mcp_download_safe ...: prints {"success":false,"error":{"type":
# "provider_unavailable",...}} and returns 0, as documented for a missing
# HTTPS provider.
mcp_download_safe() {
	printf '%s' '{"success":false,"error":{"type":"provider_unavailable","message":"mcp_download_safe is not provided by Boris; fetch with curl (the sandbox decides what the network allows)"}}'
}

# mcp_download_safe_or_fail ...: fails the tool with -32603.
mcp_download_safe_or_fail() {
	mcp_fail -32603 "mcp_download_safe_or_fail is not provided by Boris; fetch with curl (the sandbox decides what the network allows)"
}

# mcp_result_with_ui URI TEXT [DATA], mcp_result_with_ui_data URI TEXT DATA:
# as for a client without UI support: TEXT as text content, DATA (when it
# is a JSON object) as structuredContent.
mcp_result_with_ui() {
	local t sc=""
	__mcp_sdk_esc "${2-}"
	t="${__mcp_sdk_r}"
	if [ -n "${3-}" ] && __mcp_sdk_is_json "$3" && { [ -n "${__mcp_sdk_jq}" ] || [ "${__mcp_sdk_type}" = object ]; }; then
		__mcp_sdk_oneline "$3"
		case "${__mcp_sdk_r}" in [[:space:]]*\{* | \{*) sc=",\"structuredContent\":${__mcp_sdk_r}" ;; esac
	fi
	__mcp_sdk_once mcp_result_with_ui || return 0
	printf '{"content":[{"type":"text","text":%s}]%s,"isError":false}\n' "${t}" "${sc}"
}

# ---------------------------------------------------------------- off the common path
#
# Errors, mcp_fail, progress, logging, and the helpers fewer tools call.

# __mcp_sdk_ctl: sets __mcp_sdk_ctl_chars to the control characters other
# than \b \t \n \f \r and __mcp_sdk_ctl_escs to their JSON escapes, once.
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

# __mcp_sdk_is_json VALUE: 0 iff VALUE is exactly one JSON value.
__mcp_sdk_is_json() {
	local rc=0 v="${1-}"
	# Cheap answers first: jq costs ~18 ms to start, and log messages and
	# error data are mostly plain text or what mcp_json_obj printed.
	v="${v#"${v%%[![:space:]]*}"}"
	case "${v}" in
	\{* | \[* | \"* | [0-9-]* | t* | f* | n*) ;;
	*) return 1 ;; # no JSON value starts so (or it is blank)
	esac
	! __mcp_sdk_flat "${1-}" || return 0
	if [ -n "${__mcp_sdk_jq}" ]; then
		printf '%s' "${1-}" | "${__mcp_sdk_jq}" -e -s 'length == 1' >/dev/null 2>&1
		return
	fi
	__mcp_sdk_scan "${1-}" || rc=$?
	# Too large to check in bash: take it as the caller's JSON.
	[ "${rc}" = 0 ] || [ "${rc}" = 2 ]
}

# __mcp_sdk_uint VALUE DEFAULT: prints VALUE if it is digits, else DEFAULT.
__mcp_sdk_uint() {
	case "${1-}" in
	'' | *[!0-9]*) printf '%s' "$2" ;;
	*) printf '%s' "$1" ;;
	esac
}

# mcp_is_valid_json VALUE: 0 iff VALUE is exactly one JSON value.
mcp_is_valid_json() {
	__mcp_sdk_is_json "${1-}"
}

# mcp_byte_length VALUE: prints VALUE's length in bytes.
mcp_byte_length() {
	local LC_ALL=C
	local v="${1-}"
	printf '%s' "${#v}"
}

# mcp_args_raw: prints the arguments object.
mcp_args_raw() {
	__mcp_sdk_payload MCP_TOOL_ARGS_JSON MCP_TOOL_ARGS_FILE
	printf '%s' "${__mcp_sdk_r}"
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

# mcp_log LEVEL LOGGER MESSAGE_OR_JSON: sends a log message. The third
# argument is sent as JSON when it is one JSON value, else as a string.
# LEVEL is an RFC 5424 name (warn means warning); others become info.
mcp_log() {
	local level logger="${2:-${MCP_TOOL_NAME:-tool}}" data="${3-}" lj
	level="${1:-info}"
	case "${level}" in
	debug | info | notice | warning | warn | error | critical | alert | emergency) ;;
	*) level="$(printf '%s' "${level}" | tr '[:upper:]' '[:lower:]')" ;;
	esac
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

# __mcp_sdk_esc_ctl VALUE: sets __mcp_sdk_r to VALUE with the control
# characters other than \b \t \n \f \r replaced by their JSON escapes
# (__mcp_sdk_esc's rare case).
__mcp_sdk_esc_ctl() {
	local v="${1-}" i=0
	__mcp_sdk_ctl
	while [ "${i}" -lt "${#__mcp_sdk_ctl_chars[@]}" ]; do
		case "${v}" in
		*"${__mcp_sdk_ctl_chars[${i}]}"*)
			v="${v//"${__mcp_sdk_ctl_chars[${i}]}"/${__mcp_sdk_ctl_escs[${i}]}}"
			;;
		esac
		i=$((i + 1))
	done
	__mcp_sdk_r="${v}"
}

# __mcp_sdk_success_jq DATA MAX: __mcp_sdk_success for large data, with jq.
__mcp_sdk_success_jq() {
	local data="$1" max="$2" out
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

# ---------------------------------------------------------------- the client

# A tool asks its client something by appending a question to
# ${MCP_INPUT_DIR}/input and reads the answer Boris writes to
# ${MCP_INPUT_DIR}/answer.KEY (docs/reference/core.md#extensions). On a 2026-07-28 request the call
# ends when the tool waits for an answer it does not have, the client
# answers, and the tool runs again from the start with the answers already
# there: a tool asks its questions in the same order, under the same keys,
# every time (the helpers below number them so), and does nothing it
# cannot do twice before its last question.

# __mcp_sdk_input_key KIND: sets __mcp_sdk_r to the key of the tool's next
# question of KIND: MCP_INPUT_KEY when set (MCP_INPUT_KEY=name mcp_elicit
# ...), else KIND-1, KIND-2, ... in the order the tool asks them, counted in
# the call's directory (a question asked in $(...) counts too).
__mcp_sdk_input_key() {
	local n=1
	if [ -n "${MCP_INPUT_KEY:-}" ]; then
		__mcp_sdk_r="${MCP_INPUT_KEY}"
		return 0
	fi
	while ! (set -o noclobber && : >"${MCP_INPUT_DIR}/key.$1-${n}") 2>/dev/null; do
		n=$((n + 1))
		[ "${n}" -le 1000 ] || return 1
	done
	__mcp_sdk_r="$1-${n}"
}

# mcp_input_request KEY METHOD [PARAMS_JSON]: asks the client METHOD
# (elicitation/create, sampling/createMessage or roots/list) with PARAMS,
# under KEY, without waiting; mcp_input_response KEY gets the answer. A
# question whose answer is already there is not asked again. Returns 1
# when the tool runs without a client (MCP_INPUT_DIR unset).
mcp_input_request() {
	local key="${1-}" method="${2-}" params="${3:-{\}}" k m
	if [ -z "${MCP_INPUT_DIR:-}" ]; then
		__mcp_sdk_warn "mcp_input_request: no client to ask (MCP_INPUT_DIR is not set)"
		return 1
	fi
	case "${key}" in
	'' | *[!A-Za-z0-9_.-]* | [.-]*)
		__mcp_sdk_warn "mcp_input_request: invalid key '${key}' (letters, digits, _ . -)"
		return 1
		;;
	esac
	[ -e "${MCP_INPUT_DIR}/answer.${key}" ] && return 0
	__mcp_sdk_esc "${key}"
	k="${__mcp_sdk_r}"
	__mcp_sdk_esc "${method}"
	m="${__mcp_sdk_r}"
	__mcp_sdk_oneline "${params}"
	printf '{"ask":%s,"method":%s,"params":%s}\n' "${k}" "${m}" "${__mcp_sdk_r}" >>"${MCP_INPUT_DIR}/input"
}

# mcp_input_response KEY [TIMEOUT_SECS]: waits for the answer to KEY and
# prints it: the client's result (an ElicitResult, CreateMessageResult or
# ListRootsResult), or {"error":{"code":N,"message":...}} when it could not
# be asked or the client refused. Returns 1 on an error, on cancellation and
# after TIMEOUT_SECS (MCPBASH_ELICITATION_TIMEOUT, default 30).
mcp_input_response() {
	local key="${1-}" timeout="${2:-${MCPBASH_ELICITATION_TIMEOUT:-30}}" f i=0 out
	f="${MCP_INPUT_DIR:-}/answer.${key}"
	if [ -z "${MCP_INPUT_DIR:-}" ] || [ -z "${key}" ]; then
		printf '{"error":{"code":-32603,"message":"no client to ask"}}'
		return 1
	fi
	case "${timeout}" in '' | *[!0-9]*) timeout=30 ;; esac
	if [ ! -e "${f}" ]; then
		__mcp_sdk_esc "${key}"
		printf '{"wait":%s}\n' "${__mcp_sdk_r}" >>"${MCP_INPUT_DIR}/input"
		while [ ! -e "${f}" ]; do
			if mcp_is_cancelled; then
				printf '{"error":{"code":-32800,"message":"cancelled"}}'
				return 1
			fi
			if [ "${i}" -ge $((timeout * 10)) ]; then
				__mcp_sdk_warn "mcp_input_response: no answer to '${key}' after ${timeout}s"
				printf '{"error":{"code":-32001,"message":"timed out waiting for the client"}}'
				return 1
			fi
			sleep 0.1
			i=$((i + 1))
		done
	fi
	out="$(cat "${f}")" || return 1
	printf '%s' "${out}"
	case "${out}" in
	'{"error":'*) return 1 ;;
	esac
}

# __mcp_sdk_elicit WHO PARAMS_JSON TIMEOUT: an elicitation, answered as the
# framework's helpers answer: {"action":...,"content":...}, with "error"
# and "cancel" for what went wrong; returns 1 unless the client answered
# (a decline is an answer).
__mcp_sdk_elicit() {
	local who="$1" params="$2" timeout="$3" out
	if ! __mcp_sdk_can elicitation; then
		__mcp_sdk_warn "${who}: Client does not support elicitation"
		printf '{"action":"decline","content":null}'
		return 1
	fi
	if ! out="$(__mcp_sdk_ask "${who}" elicitation elicit elicitation/create "${params}" "${timeout}")"; then
		case "${out}" in
		*'"code":-32800'*) printf '{"action":"cancel","content":null}' ;;
		*) printf '{"action":"error","content":null}' ;;
		esac
		return 1
	fi
	printf '%s' "${out}"
}

# __mcp_sdk_can CAPABILITY: 0 iff the client declared it (elicitation,
# sampling or roots).
__mcp_sdk_can() {
	case "$1" in
	elicitation) [ "${MCP_ELICIT_SUPPORTED:-0}" = "1" ] ;;
	sampling) [ "${MCP_SAMPLING_SUPPORTED:-0}" = "1" ] ;;
	roots) [ "${MCP_ROOTS_SUPPORTED:-0}" = "1" ] ;;
	*) return 1 ;;
	esac
}

# __mcp_sdk_ask WHO CAPABILITY KIND METHOD PARAMS_JSON TIMEOUT: asks the
# client METHOD under the tool's next key of KIND and prints the answer as
# mcp_input_response does; without CAPABILITY, {"error":...} (-32021) and
# status 1.
__mcp_sdk_ask() {
	if ! __mcp_sdk_can "$2"; then
		__mcp_sdk_warn "$1: Client does not support $2"
		printf '{"error":{"code":-32021,"message":"the client did not declare the %s capability"}}' "$2"
		return 1
	fi
	__mcp_sdk_input_key "$3" || return 1
	local key="${__mcp_sdk_r}"
	mcp_input_request "${key}" "$4" "$5" || return 1
	mcp_input_response "${key}" "$6"
}

# mcp_elicit MESSAGE SCHEMA_JSON [TIMEOUT_SECS] [MODE]: asks the user for
# input of SCHEMA (an object schema of primitive properties); prints
# {"action":"accept|decline|cancel","content":{...}}. Without a client that
# supports elicitation: {"action":"decline","content":null}, status 1.
mcp_elicit() {
	local message="${1-}" schema="${2:-{\}}" timeout="${3:-${MCPBASH_ELICITATION_TIMEOUT:-30}}" mode="${4:-form}" m
	__mcp_sdk_esc "${message}"
	m="${__mcp_sdk_r}"
	__mcp_sdk_oneline "${schema}"
	if [ "${mode}" = "form" ]; then
		__mcp_sdk_elicit mcp_elicit "{\"message\":${m},\"requestedSchema\":${__mcp_sdk_r}}" "${timeout}"
	else
		__mcp_sdk_esc "${mode}"
		__mcp_sdk_elicit mcp_elicit "{\"mode\":${__mcp_sdk_r},\"message\":${m},\"requestedSchema\":${schema}}" "${timeout}"
	fi
}

# mcp_elicit_url MESSAGE URL [TIMEOUT_SECS]: asks the user to complete a
# flow at URL out of band (SEP-1036); prints {"action":...,"content":null}.
mcp_elicit_url() {
	local message="${1-}" url="${2-}" timeout="${3:-${MCPBASH_ELICITATION_TIMEOUT:-30}}" m u id
	__mcp_sdk_esc "${message}"
	m="${__mcp_sdk_r}"
	__mcp_sdk_esc "${url}"
	u="${__mcp_sdk_r}"
	id="boris-$(date +%s)-$$-${RANDOM}"
	__mcp_sdk_elicit mcp_elicit_url "{\"mode\":\"url\",\"message\":${m},\"url\":${u},\"elicitationId\":\"${id}\"}" "${timeout}"
}

# __mcp_sdk_enum OPTIONS...: sets __mcp_sdk_r to the options as a JSON
# array of strings.
__mcp_sdk_enum() {
	local out="" o
	for o in "$@"; do
		__mcp_sdk_esc "${o}"
		out="${out:+${out},}${__mcp_sdk_r}"
	done
	__mcp_sdk_r="[${out}]"
}

# __mcp_sdk_titled OPTIONS...: sets __mcp_sdk_r to "value:Title" options as
# a JSON array of {"const":value,"title":Title} (the title is the value when
# there is no colon).
__mcp_sdk_titled() {
	local out="" o v t
	for o in "$@"; do
		v="${o%%:*}"
		t="${o#*:}"
		__mcp_sdk_esc "${v}"
		v="${__mcp_sdk_r}"
		__mcp_sdk_esc "${t}"
		out="${out:+${out},}{\"const\":${v},\"title\":${__mcp_sdk_r}}"
	done
	__mcp_sdk_r="[${out}]"
}

# mcp_elicit_string MESSAGE [FIELD]: free text, as content.FIELD (value).
mcp_elicit_string() {
	local field="${2:-value}"
	__mcp_sdk_esc "${field}"
	mcp_elicit "${1-}" "{\"type\":\"object\",\"properties\":{${__mcp_sdk_r}:{\"type\":\"string\"}},\"required\":[${__mcp_sdk_r}]}"
}

# mcp_elicit_confirm MESSAGE: yes or no, as content.confirmed.
mcp_elicit_confirm() {
	mcp_elicit "${1-}" '{"type":"object","properties":{"confirmed":{"type":"boolean"}},"required":["confirmed"]}'
}

# mcp_elicit_choice MESSAGE OPTION...: one of the options, as content.choice.
mcp_elicit_choice() {
	local message="${1-}"
	shift
	__mcp_sdk_enum "$@"
	mcp_elicit "${message}" "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\",\"enum\":${__mcp_sdk_r}}},\"required\":[\"choice\"]}"
}

# mcp_elicit_titled_choice MESSAGE "value:Title"...: one value, shown by its
# title (SEP-1330), as content.choice.
mcp_elicit_titled_choice() {
	local message="${1-}"
	shift
	__mcp_sdk_titled "$@"
	mcp_elicit "${message}" "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\",\"oneOf\":${__mcp_sdk_r}}},\"required\":[\"choice\"]}"
}

# mcp_elicit_multi_choice MESSAGE OPTION...: any of the options
# (SEP-1330), as the array content.choices.
mcp_elicit_multi_choice() {
	local message="${1-}"
	shift
	__mcp_sdk_enum "$@"
	mcp_elicit "${message}" "{\"type\":\"object\",\"properties\":{\"choices\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":${__mcp_sdk_r}}}},\"required\":[\"choices\"]}"
}

# mcp_elicit_titled_multi_choice MESSAGE "value:Title"...: any of the
# values, shown by their titles, as the array content.choices.
mcp_elicit_titled_multi_choice() {
	local message="${1-}"
	shift
	__mcp_sdk_titled "$@"
	mcp_elicit "${message}" "{\"type\":\"object\",\"properties\":{\"choices\":{\"type\":\"array\",\"items\":{\"anyOf\":${__mcp_sdk_r}}}},\"required\":[\"choices\"]}"
}

# mcp_sample PROMPT [MAX_TOKENS] [TIMEOUT_SECS]: asks the client's model
# (sampling/createMessage) to answer PROMPT; prints its CreateMessageResult
# ({"role":"assistant","content":{"type":"text","text":...},"model":...}).
# Without a client that supports sampling, or when the client refuses:
# {"error":{...}}, status 1. mcp_sample_text prints only the text.
mcp_sample() {
	local prompt="${1-}" max="${2:-1000}" timeout="${3:-${MCPBASH_ELICITATION_TIMEOUT:-30}}"
	case "${max}" in '' | *[!0-9]*) max=1000 ;; esac
	__mcp_sdk_esc "${prompt}"
	__mcp_sdk_ask mcp_sample sampling sample sampling/createMessage \
		"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":${__mcp_sdk_r}}}],\"maxTokens\":${max}}" "${timeout}"
}

# mcp_sample_text PROMPT [MAX_TOKENS] [TIMEOUT_SECS]: the text of
# mcp_sample's answer.
mcp_sample_text() {
	local out text
	out="$(mcp_sample "$@")" || {
		printf '%s' "${out}"
		return 1
	}
	# One content block, as most clients answer (and as minimal mode reads
	# it), else the text blocks of several (which needs jq).
	if text="$(__mcp_sdk_query mcp_sample_text "${out}" '.content.text // ""' 2>/dev/null)" && [ -n "${text}" ]; then
		printf '%s' "${text}"
		return 0
	fi
	__mcp_sdk_query mcp_sample_text "${out}" '[.content[]? | select(.type == "text") | .text] | join("")'
}

# mcp_client_roots [TIMEOUT_SECS]: asks the client for its roots
# (roots/list); prints its ListRootsResult ({"roots":[{"uri":...}]}).
mcp_client_roots() {
	__mcp_sdk_ask mcp_client_roots roots roots roots/list '{}' "${1:-${MCPBASH_ELICITATION_TIMEOUT:-30}}"
}

# mcp_require_capability NAME...: fails the call with
# MissingRequiredClientCapabilityError (-32021) unless the client declared
# each capability (elicitation, sampling, roots).
mcp_require_capability() {
	local c
	for c in "$@"; do
		if ! __mcp_sdk_can "${c}"; then
			__mcp_sdk_esc "${c}"
			mcp_fail -32021 "this tool needs the client's ${c} capability, which it did not declare" "{\"requiredCapabilities\":{${__mcp_sdk_r}:{}}}"
		fi
	done
}

# mcp_ui_form, mcp_ui_table, mcp_tool_meta_with_ui: return 1 with a message.
__mcp_sdk_no_ui() {
	__mcp_sdk_warn "$1: MCP Apps UI is not supported by Boris"
	return 1
}
