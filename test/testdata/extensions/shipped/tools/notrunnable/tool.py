print("must never run")
