/* load_outer.c: a plugin that links another plugin (load_plugin.c) that
 * links the CUDA runtime: the chain program -> RTLD_LOCAL plugin ->
 * library -> libcudart, for load_ways.c. */
int plugin_calls(const char *where);

int outer_calls(const char *where)
{
    return plugin_calls(where);
}
