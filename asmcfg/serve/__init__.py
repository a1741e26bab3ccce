"""`asmcfg serve LOG`: a local web app over a whole log, its index of every compilation, toplists filled in the
background, and each compilation's report page rendered on demand."""
