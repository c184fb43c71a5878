# source list of src/rt (explicit, in pipeline order)
