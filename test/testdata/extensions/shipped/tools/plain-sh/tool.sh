echo "plain-sh ran under bash ${BASH_VERSINFO[0]}"
