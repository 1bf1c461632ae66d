#include <iostream>
#include <vector>
#include <map>
#include <string>
#include <algorithm>
#include <stdexcept>
#include <memory>
#include <sstream>
#include <iomanip>
struct Shape { virtual double area() const = 0; virtual ~Shape() {} };
struct Sq : Shape { double s; Sq(double s):s(s){} double area() const override { return s*s; } };
struct Ci : Shape { double r; Ci(double r):r(r){} double area() const override { return 3.14159265358979*r*r; } };
int f(int x) { if (x > 5) throw std::runtime_error("too big: " + std::to_string(x)); return x*2; }
int main() {
  std::vector<int> v; for (int i = 0; i < 1000; i++) v.push_back((i*7919)%1009);
  std::sort(v.begin(), v.end());
  std::map<std::string,int> m; for (int i = 0; i < 50; i++) m["k" + std::to_string(i%17)] += i;
  for (auto &p : m) std::cout << p.first << "=" << p.second << " ";
  std::cout << "\n" << v[0] << " " << v[500] << " " << v[999] << "\n";
  std::vector<std::unique_ptr<Shape>> sh; for (int i = 1; i < 10; i++) { if (i%2) sh.emplace_back(new Sq(i)); else sh.emplace_back(new Ci(i)); }
  double t = 0; for (auto &s : sh) t += s->area(); std::cout << std::setprecision(12) << t << "\n";
  int caught = 0; for (int i = 0; i < 10; i++) { try { f(i); } catch (const std::exception &e) { caught++; if (i == 9) std::cout << e.what() << "\n"; } }
  std::ostringstream os; os << std::hex << 255 << " " << std::scientific << 1234.5; std::cout << os.str() << " caught " << caught << "\n";
  return 0;
}
