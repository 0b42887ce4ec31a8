source "${MCP_SDK:?}/tool-sdk.sh"
mcp_result_success "$(mcp_json_obj message "echo: $(mcp_args_require '.word')")"
