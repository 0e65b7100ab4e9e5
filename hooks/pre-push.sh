entire_run pre-push "$@"
