/* isa_helpers.h — the kernel-file loader Intel's CM example hosts use
 * (cm::util::isa::loadFile), for cmetal.  Intel hosts load NAME_genx.isa,
 * which Intel's compiler writes; with cmetal that file may hold CM source,
 * the PTX of `cmetal -t ptx` or a kernel library built from `cmetal -t c`
 * (CmDevice::LoadProgram takes each).  When the file is missing, the CM
 * source beside it is read instead: for "dir/NAME_genx.isa", first
 * "dir/NAME_genx.cpp" (the name Intel's examples give their kernels), then
 * "dir/NAME_genx.cm" and "dir/NAME.cm".  An empty string means none could
 * be read. */
#ifndef CMETAL_ISA_HELPERS_H
#define CMETAL_ISA_HELPERS_H

#include <fstream>
#include <sstream>
#include <string>

namespace cm {
namespace util {
namespace isa {

inline bool readFile(const std::string &path, std::string &out)
{
	std::ifstream f(path.c_str(), std::ios::in | std::ios::binary);
	if (!f)
		return false;
	std::ostringstream s;
	s << f.rdbuf();
	out = s.str();
	return true;
}

inline std::string loadFile(const std::string &name)
{
	std::string code;
	if (readFile(name, code))
		return code;
	std::string stem = name;
	size_t dot = stem.rfind(".isa");
	if (dot == std::string::npos || dot + 4 != stem.size())
		return std::string();
	stem.erase(dot);
	const char *ext[] = {".cpp", ".cm"};
	for (int i = 0; i < 2; i++)
		if (readFile(stem + ext[i], code))
			return code;
	size_t g = stem.rfind("_genx");
	if (g != std::string::npos && g + 5 == stem.size() && readFile(stem.substr(0, g) + ".cm", code))
		return code;
	return std::string();
}

} // namespace isa
} // namespace util
} // namespace cm

#endif
