# source list of src/ir (explicit, in pipeline order)

