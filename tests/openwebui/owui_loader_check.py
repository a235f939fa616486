"""Run under .venv-owui: load a tool file with Open WebUI's own loader and print what Open WebUI makes of it.

Writes one JSON object to the given file (Open WebUI's migrations print to stdout): the specs get_tool_specs
builds, the descriptions get_tools sends at chat time, the parameters left on each callable once the reserved
ones are bound, and the valves' defaults.
"""

import asyncio
import inspect
import json
import re
import sys


async def main(tool_path: str, out_path: str) -> None:
    from open_webui.utils.plugin import load_tool_module_by_id
    from open_webui.utils.tools import get_async_tool_function_and_apply_extra_params, get_tool_specs

    with open(tool_path, encoding="utf-8") as handle:
        content = handle.read()
    tools, frontmatter, _module = await load_tool_module_by_id("sentinel", content=content)
    specs = get_tool_specs(tools)
    reserved = {"__messages__": [], "__metadata__": {}, "__user__": {}, "__event_emitter__": None, "__id__": "x"}
    bound = {}
    runtime_descriptions = {}
    for spec in specs:
        method = getattr(tools, spec["name"])
        callable_ = await get_async_tool_function_and_apply_extra_params(method, reserved)
        bound[spec["name"]] = list(inspect.signature(callable_).parameters)
        # The chat path (utils.tools.get_tools) describes a tool by the raw docstring up to the first :param.
        runtime_descriptions[spec["name"]] = re.split(":(param|return)", callable_.__doc__ or "", maxsplit=1)[0]
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(
            {
                "specs": specs,
                "bound_parameters": bound,
                "runtime_descriptions": runtime_descriptions,
                "frontmatter": frontmatter,
                "valves": tools.valves.model_dump(),
            },
            out,
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
