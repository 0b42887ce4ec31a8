#!/usr/bin/env bash
# Example 10's shape, but without the execute bit: run through bash.
printf '["retry job","review logs","rebuild cache"]\n'
