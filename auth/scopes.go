package auth

// CoreArgs maps an identity's scopes onto core flags (docs/reference/gateway.md#authentication). The token
// itself never reaches the core; only these flags do.
//
//	boris:exec   bash, task_output, task_stop
//	boris:write  str_replace, create_file (the editor tool's writing commands)
//	boris:read   view, grep, glob
//
// Without boris:exec the core runs with --disable-tools bash (which removes
// the task tools too); without boris:write it runs with --read-only.
func CoreArgs(id *Identity) []string {
	var args []string
	if !id.Has(ScopeExec) {
		args = append(args, "--disable-tools", "bash")
	}
	if !id.Has(ScopeWrite) {
		args = append(args, "--read-only")
	}
	return args
}
