# source list of src/opt (explicit, in pipeline order)
